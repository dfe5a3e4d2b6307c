import { readFile } from 'node:fs/promises';

type Mail = { readonly to: string; readonly subject: string; readonly text: string; readonly sentAt: string };

/** The newest mails shown; the file keeps them all. */
const SHOWN = 50;

/**
 * R-WEB-06: the development mailbox, on the embedded default only (never in production, never with
 * SMTP): the outbox file's newest mails, newest first, so a newcomer signs in without opening files.
 * Rendered here as plain HTML: no script, no inline style, under the pages' policy.
 */
export async function mailboxPage(outbox: string): Promise<string> {
  const mails = (await outboxLines(outbox)).slice(-SHOWN).reverse();
  const items = mails.length ? mails.map(mailItem).join('\n') : '<li>No mail yet. Ask for a sign-in code, then reload this page.</li>';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Development mailbox</title></head>
<body>
<header><p>Development only: the embedded outbox (DATA_DIR/outbox.log). Production sends mail through SMTP.</p></header>
<main>
<h1>Development mailbox</h1>
<p><a href="/dev/mailbox">Reload the mailbox</a> · <a href="/sign-in">Go to sign in</a></p>
<ol>
${items}
</ol>
</main>
</body>
</html>
`;
}

function mailItem(m: Mail): string {
  const sent = escape(m.sentAt);
  const lines = m.text
    .split('\n')
    .map((line) => `<p>${escape(line)}</p>`)
    .join('');
  const heading = `<h2>${escape(m.subject)}</h2><p>To ${escape(m.to)}, <time datetime="${sent}">${sent}</time></p>`;
  return `<li><article>${heading}${lines}</article></li>`;
}

async function outboxLines(outbox: string): Promise<Mail[]> {
  let text: string;
  try {
    text = await readFile(outbox, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        const m = JSON.parse(line) as Partial<Mail>;
        return [{ to: String(m.to ?? ''), subject: String(m.subject ?? ''), text: String(m.text ?? ''), sentAt: String(m.sentAt ?? '') }];
      } catch {
        return [];
      }
    });
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
