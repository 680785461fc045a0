// The one name the two files of the loader share: the property of loader-frame's script element through which it
// hands createChatFrame to loader.js. A string in both builds, never a property the minifier shortens (each build
// would shorten it its own way).
export const FRAME_EXPORT = 'PracticeChatFrame';
