import { MAIL_LANGUAGES, MAIL_TEMPLATES, type MailLanguage, type MailTemplate } from './templates';

/** A message ready to send: what a template and its data render to. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The values a template's placeholders take; user data among them is never trusted. */
export type MailData = Readonly<Record<string, string>>;

const PLACEHOLDER = /\{\{(\w+)\}\}/g;

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** A header holds one line: a value that would start another is folded onto this one. */
const oneLine = (value: string) => value.replace(/[\r\n\t\v\f\u2028\u2029]+/g, ' ');

/** Throws on a placeholder without a value: a programming error, never a message with a hole. */
function fill(text: string, data: MailData, encode: (value: string) => string): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    const value = data[name];
    if (value === undefined) throw new Error(`mail template: no value for {{${name}}}`);
    return encode(value);
  });
}

const layout = (language: MailLanguage, subject: string, content: string) =>
  [
    '<!doctype html>',
    `<html lang="${language}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${subject}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 36rem; margin: 0 auto; padding: 1rem">',
    content,
    '</body>',
    '</html>',
  ].join('\n');

/** The subject, plain text and HTML of `template` in `language`, with `data` in place. */
export function renderMail(
  template: MailTemplate,
  language: MailLanguage,
  data: MailData,
): RenderedMail {
  const source = MAIL_TEMPLATES[template][language];
  const subject = fill(source.subject, data, oneLine);
  return {
    subject,
    text: fill(source.text, data, (value) => value),
    html: layout(language, escapeHtml(subject), fill(source.html, data, escapeHtml)),
  };
}

/**
 * The language of a message for someone whose browser sent `ranges`
 * (parsed Accept-Language, best first): the first whose primary tag the
 * service writes mail in, else English.
 */
export function mailLanguageOf(ranges: readonly string[]): MailLanguage {
  for (const range of ranges) {
    const primary = range.split('-')[0]?.toLowerCase();
    const found = MAIL_LANGUAGES.find((language) => language === primary);
    if (found) return found;
  }
  return 'en';
}
