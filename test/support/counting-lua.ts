/**
 * `source` run as it is, with `redis` shadowed by a table that counts each call and pcall: the
 * wrapped script returns `{count, the script's reply}`. What a script costs inside Redis (a
 * client sees only its EVAL).
 */
export function countingLua(source: string): string {
  return `local real, n = redis, 0
local redis = {
  call = function(...) n = n + 1 return real.call(...) end,
  pcall = function(...) n = n + 1 return real.pcall(...) end,
  error_reply = real.error_reply, status_reply = real.status_reply, sha1hex = real.sha1hex,
}
local function body()
${source}
end
local reply = body()
return {n, reply}`;
}
