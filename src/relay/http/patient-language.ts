// The patient's language as a browser names it to the relay: one of the widget's own tags (`es`, `zh-Hant`), parsed
// against the list, never passed on as given.
import { z } from 'zod';
import { LOCALE_TAGS } from '../../shared/locales/locale-list.ts';

export const patientLanguage = z.enum(LOCALE_TAGS);
