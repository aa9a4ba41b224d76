// Scenarios run one at a time in the order of their file names (1-…, 2-…), then any other test
// file of test/faults (the fuzz of every operation, for one) in name order.
class ByName {
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
  }

  shard(tests) {
    return tests;
  }

  allFailedTests(tests) {
    return tests;
  }

  cacheResults() {}
}

module.exports = ByName;
