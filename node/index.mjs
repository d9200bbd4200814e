// The ES module entry point: the same objects as the CommonJS one (index.js).
import callfix from './index.js';

export const { Toolset, Session, render, tools, heal, version } = callfix;
export default callfix;
