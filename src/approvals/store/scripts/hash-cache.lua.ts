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
-- What \`before\` holds for a field written before the call knew what Redis holds.
local UNREAD = {}
local function cached_hash(key)
  local entry = hash_cache[key]
  if not entry then
    -- values: the fields as the call sees them, where known. Also, once the call writes to the
    -- hash, before: for each field written since the last flush, what Redis holds (a field not
    -- written is as Redis holds it). Nothing is kept twice for the fields only read.
    entry = {values = {}}
    hash_cache[key] = entry
  end
  return entry
end

-- Notes that the key holds no hash yet (the caller checked, or deleted it): its fields are read
-- as missing without asking Redis.
local function hash_known_empty(key)
  cached_hash(key).empty = true
end

-- Records values read by the caller (an HMGET it sent itself), unless written since.
local function hash_learn(key, fields, values)
  local entry = cached_hash(key)
  local known, before = entry.values, entry.before
  if not before then
    for i = 1, #fields do known[fields[i]] = values[i] or false end
    return
  end
  for i = 1, #fields do
    local field, value = fields[i], values[i] or false
    if before[field] ~= nil then before[field] = value else known[field] = value end
  end
end

-- As HMGET: one read of the fields not known yet, then every value from what is known.
local function hmget(key, fields)
  local entry = cached_hash(key)
  local known = entry.values
  local out, missing, missing_at = {}, nil, nil
  for i = 1, #fields do
    local field = fields[i]
    local value = known[field]
    if value == nil then
      if entry.empty then
        value = false
        known[field] = false
      elseif missing then
        missing[#missing + 1], missing_at[#missing_at + 1] = field, i
      else
        missing, missing_at = {field}, {i}
      end
    end
    out[i] = value
  end
  if missing then
    local read = redis.call('HMGET', key, unpack(missing))
    for j = 1, #missing do
      local value = read[j] or false
      known[missing[j]] = value
      out[missing_at[j]] = value
    end
  end
  return out
end

local function hget(key, field)
  local value = cached_hash(key).values[field]
  if value == nil then value = hmget(key, {field})[1] end
  return value
end

-- The table of what Redis holds for the fields the call writes to a hash (see cached_hash).
local function before_writes(key, entry)
  local before = entry.before
  if not before then
    before = {}
    entry.before = before
    dirty_hashes[#dirty_hashes + 1] = key
  end
  return before
end

-- Writes field, value pairs (false: the field removed) as the call sees them, noting first what
-- Redis holds for each field.
local function write_pairs(key, list, n)
  local entry = cached_hash(key)
  local before, known = before_writes(key, entry), entry.values
  for i = 1, n, 2 do
    local field = list[i]
    if before[field] == nil then
      local stored = known[field]
      if stored == nil then
        if entry.empty then stored = false else stored = UNREAD end
      end
      before[field] = stored
    end
    known[field] = list[i + 1]
  end
end

-- As HSET with field, value pairs.
local function hset(key, ...)
  local list, n = {...}, select('#', ...)
  for i = 2, n, 2 do
    local value = list[i]
    if type(value) == 'number' and value == math.floor(value) then
      list[i] = string.format('%d', value)
    else
      list[i] = tostring(value)
    end
  end
  write_pairs(key, list, n)
end

local function hdel(key, ...)
  local fields, n = {...}, select('#', ...)
  local list = {}
  for i = 1, n do list[2 * i - 1], list[2 * i] = fields[i], false end
  write_pairs(key, list, 2 * n)
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
  for k = 1, #keys do
    local key = keys[k]
    local entry = hash_cache[key]
    local before = entry.before
    if before then
      local known = entry.values
      local sets, dels = {}, {}
      for field, stored in pairs(before) do
        local value = known[field]
        if value == stored then
          -- unchanged
        elseif value then
          sets[#sets + 1] = field
          sets[#sets + 1] = value
        else
          dels[#dels + 1] = field
        end
      end
      entry.before = nil
      if #dels > 0 then redis.call('HDEL', key, unpack(dels)) end
      if #sets > 0 then redis.call('HSET', key, unpack(sets)) end
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
