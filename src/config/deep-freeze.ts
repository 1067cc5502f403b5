// Freezes a config tree so that no runtime code can change what was validated at boot
// (docs/architecture.md house style 4). Object.freeze is shallow; this walks plain objects and arrays.

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
