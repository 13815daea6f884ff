import { describe, expect, test } from 'bun:test';
import { parseAcceptLanguage } from '@/content/language';
import { mailLanguageOf, renderMail } from '@/mail/render';
import { MAIL_LANGUAGES, MAIL_TEMPLATES, type MailTemplate } from '@/mail/templates';

const placeholdersOf = (text: string) =>
  [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('mail templates', () => {
  test('every template has every language, with the same placeholders in each part', () => {
    for (const [name, languages] of Object.entries(MAIL_TEMPLATES)) {
      const english = languages.en;
      for (const language of MAIL_LANGUAGES) {
        const version = languages[language];
        for (const part of ['subject', 'text', 'html'] as const) {
          expect([name, language, part, placeholdersOf(version[part])]).toEqual([
            name,
            language,
            part,
            placeholdersOf(english[part]),
          ]);
        }
      }
    }
  });

  test('renders plain text and a whole HTML page in the language asked', () => {
    const english = renderMail('test', 'en', { service: 'Listings' });
    const spanish = renderMail('test', 'es', { service: 'Listings' });
    expect(english.subject).toBe('Test message from Listings');
    expect(english.text).toStartWith('This is a test message from Listings.\n');
    expect(english.html).toStartWith('<!doctype html>\n<html lang="en">');
    expect(english.html).toContain('<title>Test message from Listings</title>');
    expect(spanish.subject).toBe('Mensaje de prueba de Listings');
    expect(spanish.html).toContain('<html lang="es">');
  });
});

describe('mail templates: error', () => {
  test('user data is escaped in the HTML and kept on one line in the subject', () => {
    const hostile = 'Eve <script>alert("x")</script> & \'co\'\r\nBcc: victim@example.com';
    const mail = renderMail('test', 'en', { service: hostile });
    expect(mail.subject).toBe(
      'Test message from Eve <script>alert("x")</script> & \'co\' Bcc: victim@example.com',
    );
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain(
      'Eve &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;',
    );
    expect(mail.text).toContain(hostile);
  });

  test('a placeholder without a value throws instead of sending a message with a hole', () => {
    expect(() => renderMail('test' as MailTemplate, 'en', {})).toThrow(
      'mail template: no value for {{service}}',
    );
  });
});

describe('mail language', () => {
  test('the first language of Accept-Language the service writes mail in, else English', () => {
    const of = (header: string | null) => mailLanguageOf(parseAcceptLanguage(header));
    expect(of('es-MX,es;q=0.9,en;q=0.8')).toBe('es');
    expect(of('fr-FR, ES;q=0.5')).toBe('es');
    expect(of('en-GB,es;q=0.9')).toBe('en');
    expect(of('de, fr')).toBe('en');
    expect(of(null)).toBe('en');
  });
});
