/**
 * The demo page served at `/`: loads the agent from this service's CDN route, identifies the
 * browser and shows the visitor ID, the confidence and this visitor's last events. The page
 * holds only the public key.
 */
import { jsStringContent } from '../cdn/agent-bundle.js';

export function demoPage(publicKey: string): string {
  const key = jsStringContent(publicKey);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tessera demo</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
  h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
  .lead { color: GrayText; margin-top: 0; }
  .card { border: 1px solid #8884; border-radius: 0.5rem; padding: 1rem 1.25rem; margin: 1rem 0; }
  .visitor { font: 600 1.6rem ui-monospace, monospace; word-break: break-all; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0.75rem 0 0; }
  dt { color: GrayText; }
  dd { margin: 0; }
  table { width: 100%; border-collapse: collapse; font-size: 0.9rem; }
  th, td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid #8883; vertical-align: top; }
  .mono { font-family: ui-monospace, monospace; }
  .error { color: #c0392b; }
  button { font: inherit; padding: 0.3rem 0.9rem; }
</style>
</head>
<body>
<h1>Tessera</h1>
<p class="lead">This page loaded the agent from this service's CDN route and asked who this browser is.</p>
<section class="card">
  <div>Visitor ID</div>
  <div class="visitor" id="visitor-id">identifying…</div>
  <dl>
    <dt>Confidence</dt><dd id="confidence">–</dd>
    <dt>Visitor found</dt><dd id="visitor-found">–</dd>
    <dt>Event ID</dt><dd id="event-id" class="mono">–</dd>
  </dl>
  <p id="error" class="error" hidden></p>
  <p><button id="again" type="button">Identify again</button></p>
</section>
<section class="card">
  <h2 style="font-size:1.1rem;margin-top:0">Last events of this visitor</h2>
  <table>
    <thead><tr><th>Time</th><th>Event ID</th><th>Confidence</th><th>Browser</th><th>IP</th><th>Flags</th></tr></thead>
    <tbody id="events"><tr><td colspan="6">–</td></tr></tbody>
  </table>
</section>
<script type="module">
const publicKey = '${key}';
const $ = (id) => document.getElementById(id);
const cell = (text, mono) => { const td = document.createElement('td'); td.textContent = text; if (mono) td.className = 'mono'; return td; };

async function showEvents(visitorId) {
  const response = await fetch('/demo/events?visitor_id=' + encodeURIComponent(visitorId));
  const { events } = await response.json();
  const body = $('events');
  body.replaceChildren();
  for (const e of events) {
    const row = document.createElement('tr');
    const flags = ['bot', 'incognito', 'virtual_machine', 'developer_tools', 'tampering', 'replayed']
      .filter((f) => e[f] === true || (f === 'bot' && e.bot === 'bad')).join(', ');
    row.append(
      cell(new Date(e.timestamp).toLocaleString()),
      cell(e.event_id, true),
      cell(e.identification ? e.identification.confidence.score.toFixed(2) : '–'),
      cell(e.browser_details ? e.browser_details.browser_name + ' ' + e.browser_details.browser_major_version + ' / ' + e.browser_details.os : '–'),
      cell(e.ip_address || '–', true),
      cell(flags || '–'),
    );
    body.append(row);
  }
}

let agent;
async function identify() {
  $('error').hidden = true;
  try {
    if (!agent) {
      const Tessera = await import('/v4/' + encodeURIComponent(publicKey));
      agent = Tessera.start();
    }
    const result = await agent.get();
    $('visitor-id').textContent = result.visitor_id;
    $('confidence').textContent = result.confidence.score.toFixed(2) + (result.confidence.comment ? ' (' + result.confidence.comment + ')' : '');
    $('visitor-found').textContent = result.visitor_found ? 'yes' : 'no (new visitor)';
    $('event-id').textContent = result.event_id;
    await showEvents(result.visitor_id);
  } catch (err) {
    $('error').hidden = false;
    $('error').textContent = (err && err.code ? err.code + ': ' : '') + (err && err.message ? err.message : String(err));
    if ($('visitor-id').textContent === 'identifying…') $('visitor-id').textContent = 'failed';
  }
}
$('again').addEventListener('click', identify);
identify();
</script>
</body>
</html>
`;
}
