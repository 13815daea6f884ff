/** Which methods are registered for a concrete path; feeds 405 + Allow. */
export function routeTable(routes: readonly { method: string; path: string }[]) {
  const compiled = routes
    .filter((route) => route.method !== 'ALL' && !route.path.includes('*'))
    .map((route) => ({
      method: route.method,
      segments: route.path.split('/').filter(Boolean),
    }));
  return (path: string): string[] => {
    const parts = path.split('/').filter(Boolean);
    const methods = new Set<string>();
    for (const route of compiled) {
      if (route.segments.length !== parts.length) continue;
      const matches = route.segments.every(
        (segment, index) => segment.startsWith(':') || segment === parts[index],
      );
      if (matches) methods.add(route.method);
    }
    return [...methods].sort();
  };
}
