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

/** Swagger UI's server picker has no label: name it for screen readers whenever it appears. */
function labelServerPicker(): void {
  const label = () => {
    const picker = document.getElementById('servers');
    if (picker && !picker.hasAttribute('aria-label')) picker.setAttribute('aria-label', 'Server');
  };
  new MutationObserver(label).observe(document.body, { childList: true, subtree: true });
}

// Module scripts run after the deferred classic bundle, so the global is there.
start();
labelServerPicker();
