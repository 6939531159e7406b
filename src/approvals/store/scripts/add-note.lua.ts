/**
 * add_note: records a fact about a pause that is not a transition (an outcome the agent
 * reported, a webhook delivery attempt) beside it, with an entry in its trail, atomically.
 * KEYS: [1] pause hash, [2] pause audit list, [3] pause notes hash
 * ARGV: [1] note field, [2] note JSON, [3] audit entry JSON, [4] retention ms,
 *       [5] call id the note is about ('' for none)
 * Returns 1 (recorded) | 0 (no such pause) | -1 (the pause has no gate with that call id)
 *
 * The notes hash expires `retention` after its last write: notes are written after the
 * decision, so they outlive the pause (which expires `retention` after it finished) by little.
 */
export const ADD_NOTE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[5] ~= '' then
  local record = cjson.decode(redis.call('HGET', KEYS[1], 'record'))
  local found = false
  for _, id in ipairs(record.callIds) do
    if id == ARGV[5] then found = true end
  end
  if not found then return -1 end
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('RPUSH', KEYS[2], ARGV[3])
return 1
`;
