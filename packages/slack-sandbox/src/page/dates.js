/**
 * Slack's `<!date^unix^format|fallback>` tokens, rendered in the reader's local time.
 * https://api.slack.com/reference/surfaces/formatting#date-formatting
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** @param {number} day */
function ordinal(day) {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  return `${day}${{ 1: 'st', 2: 'nd', 3: 'rd' }[day % 10] ?? 'th'}`;
}

/** @param {Date} date */
function startOfDay(date) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** "Today", "Yesterday", "Tomorrow", or undefined. @param {Date} date @param {Date} now */
function relativeDay(date, now) {
  const days = Math.round((startOfDay(date) - startOfDay(now)) / DAY_MS);
  return { '-1': 'Yesterday', 0: 'Today', 1: 'Tomorrow' }[days];
}

/** @param {number} ms */
function ago(ms) {
  const future = ms < 0;
  const seconds = Math.round(Math.abs(ms) / 1000);
  /** @type {Array<[number, string]>} */
  const steps = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [30, 'day'],
    [12, 'month'],
    [Number.POSITIVE_INFINITY, 'year'],
  ];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (value < size) {
      const phrase = `${value} ${unit}${value === 1 ? '' : 's'}`;
      return future ? `in ${phrase}` : `${phrase} ago`;
    }
    value = Math.floor(value / size);
  }
  return '';
}

/**
 * @param {number} unixSeconds
 * @param {string} format e.g. "{date_short} at {time}"
 * @param {Date} [now]
 */
export function formatSlackDate(unixSeconds, format, now = new Date()) {
  const date = new Date(unixSeconds * 1000);
  const month = (style) => date.toLocaleDateString(undefined, { month: style });
  const weekday = date.toLocaleDateString(undefined, { weekday: 'long' });
  const year = date.getFullYear();
  const tokens = {
    date_num: `${year}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`,
    date: `${month('long')} ${ordinal(date.getDate())}, ${year}`,
    date_short: `${month('short')} ${date.getDate()}, ${year}`,
    date_long: `${weekday}, ${month('long')} ${ordinal(date.getDate())}, ${year}`,
    time: date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' }),
    time_secs: date.toLocaleTimeString(undefined, {
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
    }),
    ago: ago(now.getTime() - date.getTime()),
  };
  const relative = relativeDay(date, now);
  const pretty = {
    date_pretty: relative ?? tokens.date,
    date_short_pretty: relative ?? tokens.date_short,
    date_long_pretty: relative ?? tokens.date_long,
  };
  const all = { ...tokens, ...pretty };
  return format.replace(/\{([a-z_]+)\}/g, (whole, name) =>
    Object.hasOwn(all, name) ? all[name] : whole,
  );
}

/** Time of a message, "10:42 AM". @param {string} ts */
export function messageTime(ts) {
  return new Date(Number(ts) * 1000).toLocaleTimeString(undefined, {
    hour: 'numeric',
    minute: '2-digit',
  });
}

/** "Today", "Yesterday" or "Monday, March 4th" for day dividers. @param {string} ts */
export function messageDay(ts) {
  const date = new Date(Number(ts) * 1000);
  return relativeDay(date, new Date()) ?? formatSlackDate(Number(ts), '{date_long}');
}

/** Full date and time, for tooltips. @param {string} ts */
export function fullTime(ts) {
  return new Date(Number(ts) * 1000).toLocaleString();
}
