import { consolePage } from '@/web/console/routes';
import type { ApiDeps } from '../deps';
import { identify } from '../plugins/auth';

/** The operator console's page, its caller identified as every route identifies one. */
export const consoleRoutes = (deps: ApiDeps) =>
  consolePage((request) =>
    identify(request, {
      tokens: deps.tokens,
      sessions: deps.sessions,
      origins: deps.config.publicOrigins,
    }),
  );
