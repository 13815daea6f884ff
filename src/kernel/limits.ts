/** The largest request body (and static-page file) the service reads: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;
