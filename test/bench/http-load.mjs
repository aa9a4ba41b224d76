// An HTTP load of a benchmark (autocannon), for a given time, with its rate in requests per second:
//   const r = await httpLoad({ url, headers, connections: 32, duration: 6 });
//   r.rps;   // requests per second, the mean of its samples; r is autocannon's result besides
// autocannon ends a run only at one of its samples, a second apart by default: asked for a quarter
// of a second, it loads for a whole second. A run shorter than a second is sampled at its own
// length, so that it stops in time (a smoke run's loads); a longer one as autocannon does.
import autocannon from 'autocannon';

/** Runs autocannon with `opts` (`duration` in seconds); answers its result with `rps`, requests per second. */
export async function httpLoad(opts) {
  const sampleMs = Math.min(1000, Math.max(10, Math.round(opts.duration * 1000)));
  const r = await autocannon({ ...opts, sampleInt: sampleMs });
  // the requests' histogram is of requests per sample
  return { ...r, rps: (r.requests.average * 1000) / sampleMs };
}

/** The statuses a load was answered with and their counts, as text (`200 x 4810, 503 x 32`): what a failed load says. */
export function statuses(result) {
  return Object.entries(result.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code} x ${count}`)
    .join(', ');
}
