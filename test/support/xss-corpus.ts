// Payloads that would run code if a message were ever rendered as HTML or a link's href were trusted. Each one calls
// __xss(<its index>) (or alert) when it runs, so a test can tell which one got through.

const TEMPLATES: readonly string[] = [
  '<script>CALL</script>',
  '<SCRIPT>CALL</SCRIPT>',
  '<ScRiPt>CALL</sCrIpT>',
  '<script src="data:text/javascript,CALL"></script>',
  '<script/src=data:,CALL></script>',
  '"><script>CALL</script>',
  "'><script>CALL</script>",
  '</textarea><script>CALL</script>',
  '</p><script>CALL</script><p>',
  '<img src=x onerror=CALL>',
  '<IMG SRC=x ONERROR=CALL>',
  '<img src="x" onerror="CALL">',
  '<img/src=x/onerror=CALL>',
  '<img src=x onerror=&#x61;lert(1)>',
  '<svg onload=CALL>',
  '<SVG ONLOAD=CALL>',
  '<svg><script>CALL</script></svg>',
  '<svg><animate onbegin=CALL attributeName=x dur=1s>',
  '<svg><a xlink:href="javascript:CALL"><text x=20 y=20>click</text></a></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=CALL>',
  '<body onload=CALL>',
  '<iframe src="javascript:CALL"></iframe>',
  '<iframe srcdoc="<script>parent.CALL</script>"></iframe>',
  '<object data="javascript:CALL"></object>',
  '<embed src="javascript:CALL">',
  '<details open ontoggle=CALL>',
  '<video><source onerror=CALL></video>',
  '<audio src=x onerror=CALL>',
  '<input autofocus onfocus=CALL>',
  '<select autofocus onfocus=CALL>',
  '<marquee onstart=CALL>',
  '<div style="background:url(javascript:CALL)">x</div>',
  '<a href="javascript:CALL">click</a>',
  '<a href="JaVaScRiPt:CALL">click</a>',
  '<a href="&#106;avascript:CALL">click</a>',
  '<a href="java&#x09;script:CALL">click</a>',
  '<a href="data:text/html,<script>CALL</script>">click</a>',
  '<a href="vbscript:msgbox(1)">click</a>',
  '<form action="javascript:CALL"><button>go</button></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:CALL">',
  '<base href="javascript:CALL//">',
  '<link rel=import href="data:text/html,<script>CALL</script>">',
  '<style>@import "javascript:CALL";</style>',
  '<template><img src=x onerror=CALL></template>',
  '<noscript><p title="</noscript><img src=x onerror=CALL>">',
  '<!--<img src="--><img src=x onerror=CALL//">',
  '<img src=`x` onerror=CALL>',
  '<<script>CALL//<</script>',
  '<scr<script>ipt>CALL</scr</script>ipt>',
  '<img src=x onerror=CALL',
  'javascript:CALL',
  'JAVASCRIPT:CALL',
  ' javascript:CALL',
  'javascript://%0aCALL',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
  '[click me](javascript:CALL)',
  '[click me](JaVaScRiPt:CALL)',
  '[click](data:text/html,<script>CALL</script>)',
  '![img](x" onerror="CALL)',
  '[a](https://ok.example" onclick="CALL)',
  'https://ok.example/"><script>CALL</script>',
  'https://ok.example/" onmouseover="CALL',
  "https://ok.example/' onmouseover='CALL",
  'https://ok.example/<img src=x onerror=CALL>',
  'http://x.example/?q=<script>CALL</script>',
  'mailto:a@b.example"><script>CALL</script>',
  'tel:+1-555"><img src=x onerror=CALL>',
  'www.ok.example/"><svg onload=CALL>',
  '&lt;script&gt;CALL&lt;/script&gt;',
  '%3Cscript%3ECALL%3C%2Fscript%3E',
  '\\u003cscript\\u003eCALL\\u003c/script\\u003e',
  '\u003cimg src=x onerror=CALL\u003e',
  '<img src=x onerror=\u0022CALL\u0022>',
  '{{constructor.constructor("CALL")()}}',
  '${CALL}',
  '<div id="__proto__">x</div>',
];

/** At least 200 payloads: every template, then variants (wrapped in prose, doubled, broken off) until enough. */
export function xssPayloads(): string[] {
  const payloads: string[] = [];
  const add = (template: string) => {
    const index = payloads.length;
    payloads.push(template.replaceAll('CALL', `__xss(${index})`));
  };
  for (const template of TEMPLATES) add(template);
  for (const template of TEMPLATES) add(`Hello! ${template} see you soon`);
  for (const template of TEMPLATES) add(`${template}${template}`);
  for (const template of TEMPLATES) add(template.slice(0, Math.max(4, Math.floor(template.length * 0.7))));
  return payloads;
}

/** Hrefs a rendered link may have. */
export const SAFE_HREF = /^(?:https?:\/\/|mailto:|tel:)/i;
