type Json = Record<string, unknown>;

/**
 * @elysiajs/openapi renders a bodiless response (z.null(), z.void()) as
 * `content: {type: "null"}`, which is not an OpenAPI media-type map; such
 * responses simply have no content. Fixed in place (the plugin caches the
 * document, so this runs once per document).
 */
export function fixBodilessResponses(document: unknown): void {
  const paths = (document as { paths?: Record<string, Record<string, Json>> })?.paths;
  if (!paths) return;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const responses = (operation as { responses?: Record<string, Json> }).responses;
      for (const response of Object.values(responses ?? {})) {
        const content = response.content as Json | undefined;
        if (content && typeof content.type === 'string') delete response.content;
      }
    }
  }
}
