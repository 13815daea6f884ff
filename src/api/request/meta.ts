export interface RequestMeta {
  id: string;
  startedAt: number;
}

const metas = new WeakMap<Request, RequestMeta>();
/** A client's X-Request-Id is echoed only when it is short and printable. */
const acceptableId = /^[\w.:-]{1,128}$/;

export const requestIdOf = (request: Request) => metas.get(request)?.id;

/** The request's id: a short printable X-Request-Id is echoed, otherwise a new UUID. */
export function requestIdFor(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && acceptableId.test(given) ? given : crypto.randomUUID();
}

/** The request's id and start time, recorded once whichever lane answers it. */
export function startRequest(request: Request): RequestMeta {
  let meta = metas.get(request);
  if (meta) return meta;
  meta = { id: requestIdFor(request), startedAt: performance.now() };
  metas.set(request, meta);
  return meta;
}

export const requestMetaOf = (request: Request): RequestMeta | undefined => metas.get(request);
