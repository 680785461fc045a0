// Loaded with `node --import` into a process under test: records every module the process resolves (one URL a line,
// in the file named by RECORD_MODULES_TO), so a test can tell what the process loaded, e.g. no transpiler.
import { register } from 'node:module';

register(new URL('./record-modules-hooks.mjs', import.meta.url), { data: { file: process.env.RECORD_MODULES_TO } });
