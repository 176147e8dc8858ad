// The value walker lives with the data model (src/zed/walk.ts), where the
// lake's type indexes use it too.
export { Walker } from '../../zed/walk';
export type { Visit } from '../../zed/walk';
