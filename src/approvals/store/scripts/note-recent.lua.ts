/**
 * note_recent: puts items at the head of a person's recent-decisions list, keeps its newest
 * entries and renews its expiry, in one command (a MULTI of the three was five). One key:
 * Cluster-safe.
 * KEYS: [1] the person's list
 * ARGV: [1] most entries kept, [2] expiry in ms, then the items, oldest first (LPUSH order)
 * Returns the list's length before it was trimmed
 */
export const NOTE_RECENT_LUA = `
local length = redis.call('LPUSH', KEYS[1], unpack(ARGV, 3))
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]) - 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return length
`;
