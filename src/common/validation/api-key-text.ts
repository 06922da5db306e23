// The characters of an API key, as the Bearer parser reads them (RFC 6750 token68 without its
// trailing '=' rule): shared by the parser and the ADMIN_API_KEY check at start-up, so a key that
// boots can always sign in.
export const API_KEY_CHARS = '[A-Za-z0-9_\\-.~+/=]';
export const API_KEY_LENGTH_MAX = 512;
export const API_KEY_TEXT = new RegExp(`^${API_KEY_CHARS}{1,${API_KEY_LENGTH_MAX}}$`);
export const API_KEY_TEXT_MESSAGE = `must be at most ${API_KEY_LENGTH_MAX} of the characters A-Z a-z 0-9 _ - . ~ + / = (what an Authorization: Bearer header carries)`;
