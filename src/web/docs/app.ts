/**
 * Starts Swagger UI (its bundle, /docs/swagger-ui.js, defines the global)
 * on /docs/json. Nothing is asked of another origin: no validator badge,
 * try-it requests go to this service with the session cookie.
 */
interface SwaggerUiGlobal {
  (options: Record<string, unknown>): unknown;
  presets: { apis: unknown };
}

function start(): void {
  const swaggerUi = (globalThis as { SwaggerUIBundle?: SwaggerUiGlobal }).SwaggerUIBundle;
  if (!swaggerUi) throw new Error('/docs/swagger-ui.js did not load');
  document.getElementById('loading')?.remove();
  swaggerUi({
    url: '/docs/json',
    dom_id: '#swagger-ui',
    presets: [swaggerUi.presets.apis],
    layout: 'BaseLayout',
    // Deep links put a link inside each operation's toggle button (nested controls).
    deepLinking: false,
    displayOperationId: true,
    displayRequestDuration: true,
    filter: true,
    showCommonExtensions: true,
    requestSnippetsEnabled: true,
    // The public validator would receive the document: off.
    validatorUrl: null,
    withCredentials: true,
    defaultModelsExpandDepth: 0,
  });
}

/**
 * Fills in what Swagger UI leaves out for keyboard and screen-reader users,
 * whenever its parts appear: a label for the server picker, and a tab stop
 * on each highlighted code block (a long response body scrolls, and a
 * scrolling region must be reachable from the keyboard).
 */
function completeAccessibility(): void {
  const complete = () => {
    const picker = document.getElementById('servers');
    if (picker && !picker.hasAttribute('aria-label')) picker.setAttribute('aria-label', 'Server');
    for (const code of document.querySelectorAll('#swagger-ui .highlight-code .microlight')) {
      if (!code.hasAttribute('tabindex')) code.setAttribute('tabindex', '0');
    }
  };
  new MutationObserver(complete).observe(document.body, { childList: true, subtree: true });
}

// Module scripts run after the deferred classic bundle, so the global is there.
start();
completeAccessibility();
