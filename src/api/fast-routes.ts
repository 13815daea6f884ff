import type { ApiDeps } from '@/api/deps';
import { fastStaticPageRead } from './content/fast-read';
import { fastCustomerReads } from './customer/fast-read';
import type { FastRoute } from './fast-lane';
import { fastPropertyList, fastPropertyRead } from './listings/properties/fast-read';

/** The hot reads the benchmark measures (docs/performance.md), in the order they are tried. */
export const fastRoutes = (deps: ApiDeps): FastRoute[] =>
  [
    fastPropertyRead(deps),
    fastPropertyList(deps),
    fastStaticPageRead(deps),
    fastCustomerReads(deps),
  ].filter((route) => route !== undefined);
