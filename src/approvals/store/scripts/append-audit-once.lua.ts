/** How many of the stream's newest entries a copy sent again looks through for its own. */
export const RECENT_ENTRIES_CHECKED = 64;

/**
 * append_audit_once: a stream entry of audit lines added unless it is there already, for a copy
 * sent again after a failure that may have come after Redis wrote it (the connection closed
 * before the answer). Each line holds its own hash, so an entry is known by its first line: the
 * stream's newest RECENT_ENTRIES_CHECKED entries are looked through for it (a copy is sent again
 * within seconds, and a busier stream than that meanwhile is not worth the read).
 * KEYS: [1] the audit stream
 * ARGV: [1] the entry's first line, [2..] its fields and values, as XADD takes them
 * Returns 1 (added) | 0 (there already)
 */
export const APPEND_AUDIT_ONCE_LUA = `
local first = ARGV[1]
local recent = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', ${RECENT_ENTRIES_CHECKED})
for _, entry in ipairs(recent) do
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'line' and fields[i + 1] == first then return 0 end
  end
end
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
return 1
`;
