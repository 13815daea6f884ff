const ENCODER = new TextEncoder();

/**
 * A response body as the UTF-8 bytes sent. Cached answers are kept this way:
 * a JavaScript string holding any non-Latin-1 character (an address with
 * "º" or "ł") takes two bytes a character, and a string body is encoded
 * again on every response, where bytes are written as they are.
 */
export const utf8 = (text: string): Utf8 => ENCODER.encode(text) as Utf8;

/** UTF-8 bytes backed by their own buffer: what a `Response` takes as a body. */
export type Utf8 = Uint8Array<ArrayBuffer>;
