import { render } from 'preact';
import { DemoApp } from './DemoApp.tsx';

const initial = new URLSearchParams(location.search).get('client_id') ?? 'demo-client';
render(<DemoApp initialClientId={initial} />, document.getElementById('demo')!);
