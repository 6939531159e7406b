/**
 * A script's reads and writes of hash fields, kept in Lua and written once per hash at the end
 * (`flush_hashes`). A script runs atomically, so deferring its writes to its end changes nothing
 * another client can see; what it saves is commands: a transition read a field, wrote it, bumped
 * a version and read the hash again for its reply, one command each, where now each hash it
 * touches costs one read (or none, once prefetched) and one write.
 *
 * Rules for the scripts that include it:
 * - every read and write of a hash field goes through these functions, never `redis.call`
 *   (a raw read would miss a deferred write; a raw write would leave a stale cached value);
 * - anything that looks at a hash other than field by field (EXISTS, HKEYS, PEXPIRE of a key the
 *   script created) calls `flush_hashes()` first;
 * - the script calls `flush_hashes()` before it returns after writing.
 *
 * Values are kept as Redis would return them: strings, or `false` for a missing field. A number
 * written is stored as its digits when whole (as `redis.call` sends it), else as `tostring`.
 */
export const LUA_HASH_CACHE = `
local hash_cache = {}
-- The hashes written since the last flush, in the order first written: a flush looks at these
-- only, not at every hash the call has read (a sweep batch reads thousands).
local dirty_hashes = {}
local function cached_hash(key)
  local entry = hash_cache[key]
  if not entry then
    -- values: as the call sees them; stored: as Redis holds them (read, or flushed), where known.
    entry = {values = {}, stored = {}, dirty = {}, any_dirty = false}
    hash_cache[key] = entry
  end
  return entry
end

-- Notes that the key holds no hash yet (the caller checked, or deleted it): its fields are read
-- as missing without asking Redis.
local function hash_known_empty(key)
  local entry = cached_hash(key)
  entry.empty = true
end

-- Records values read by the caller (an HMGET it sent itself), unless written since.
local function hash_learn(key, fields, values)
  local entry = cached_hash(key)
  for i, field in ipairs(fields) do
    entry.stored[field] = values[i] or false
    if not entry.dirty[field] then entry.values[field] = values[i] or false end
  end
end

-- Notes that a hash has writes to flush.
local function mark_written(key, entry)
  if not entry.any_dirty then
    entry.any_dirty = true
    dirty_hashes[#dirty_hashes + 1] = key
  end
end

-- As HMGET: one read of the fields not known yet, then every value from what is known.
local function hmget(key, fields)
  local entry = cached_hash(key)
  local missing = {}
  for _, field in ipairs(fields) do
    if entry.values[field] == nil then
      if entry.empty then
        entry.values[field], entry.stored[field] = false, false
      else
        missing[#missing + 1] = field
      end
    end
  end
  if #missing > 0 then
    local read = redis.call('HMGET', key, unpack(missing))
    for i, field in ipairs(missing) do
      entry.values[field] = read[i] or false
      entry.stored[field] = read[i] or false
    end
  end
  local out = {}
  for i, field in ipairs(fields) do out[i] = entry.values[field] end
  return out
end

local function hget(key, field)
  return hmget(key, {field})[1]
end

-- As HSET with field, value pairs.
local function hset(key, ...)
  local entry = cached_hash(key)
  local n = select('#', ...)
  for i = 1, n, 2 do
    local field, value = select(i, ...)
    if type(value) == 'number' and value == math.floor(value) then
      value = string.format('%d', value)
    end
    entry.values[field] = tostring(value)
    entry.dirty[field] = true
  end
  mark_written(key, entry)
end

local function hdel(key, ...)
  local entry = cached_hash(key)
  for i = 1, select('#', ...) do
    local field = select(i, ...)
    entry.values[field] = false
    entry.dirty[field] = true
  end
  mark_written(key, entry)
end

-- As HINCRBY: the new value, as a number.
local function hincrby(key, field, by)
  local value = (tonumber(hget(key, field) or '0') or 0) + by
  hset(key, field, string.format('%d', value))
  return value
end

-- As HSETNX: 1 when set, 0 when the field was there.
local function hsetnx(key, field, value)
  if hget(key, field) then return 0 end
  hset(key, field, value)
  return 1
end

-- A key's type (TYPE), asked once per key per call: no script changes a key's type.
local key_types = {}
local function key_type(key)
  local kind = key_types[key]
  if not kind then
    kind = redis.call('TYPE', key)['ok']
    key_types[key] = kind
  end
  return kind
end

-- Writes every deferred change: per hash, one HDEL of the fields removed, one HSET of the rest.
-- A field left as Redis holds it is not sent: a field written and removed again in one call
-- (an audit body the call sealed itself) costs no HDEL.
local function flush_hashes()
  local keys = dirty_hashes
  dirty_hashes = {}
  for _, key in ipairs(keys) do
    local entry = hash_cache[key]
    if entry.any_dirty then
      local sets, dels = {}, {}
      for field in pairs(entry.dirty) do
        local value = entry.values[field]
        local stored = entry.stored[field]
        if stored == nil and entry.empty then stored = false end
        if value == stored then
          -- unchanged
        elseif value then
          sets[#sets + 1] = field
          sets[#sets + 1] = value
        else
          dels[#dels + 1] = field
        end
        entry.stored[field] = value
      end
      if #dels > 0 then redis.call('HDEL', key, unpack(dels)) end
      if #sets > 0 then redis.call('HSET', key, unpack(sets)) end
      entry.dirty, entry.any_dirty = {}, false
    end
  end
end

-- Forgets what the call read and wrote (flushed first): for a script working on many pauses in
-- turn, so that what it keeps does not grow with each one.
local function forget_hashes()
  flush_hashes()
  hash_cache, key_types = {}, {}
end
`;
