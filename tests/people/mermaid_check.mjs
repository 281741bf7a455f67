// Parse Mermaid diagrams with the official mermaid package (jsdom supplies the DOM its sanitiser needs).
// stdin: a JSON list of diagram texts; stdout: a JSON list of {ok, type?, error?}, one per diagram.
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');

let input = '';
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const text of JSON.parse(input)) {
  try {
    const parsed = await mermaid.parse(text);
    out.push({ ok: true, type: parsed.diagramType });
  } catch (err) {
    out.push({ ok: false, error: String(err.message || err) });
  }
}
process.stdout.write(JSON.stringify(out));
