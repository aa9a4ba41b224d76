// jest's runtime (jest.config.js `runtime`), with each module compiled once per worker process
// rather than once per test file. jest runs every test file in a fresh module registry, and each
// module a file loads (the platform's sources, express, ajv, playwright…) is compiled from its text
// again, its functions too as they are first called: a good part of the second or so of CPU that a
// file starting the platform in process spends before its first test. V8 can save what it compiled
// (a code cache) and take it back in another context. jest compiles a module's text by calling
// vm.compileFunction, which it looks up at each call: here that call compiles the same function as
// a script instead, whose code cache, taken once the test file that first loaded the module ran (so
// with the functions it called compiled too), the next test file of the worker starts from. V8
// checks a cache against the length of the text only: the text is kept beside it and compared whole,
// and a cache V8 refuses is dropped. Stack traces keep their lines and columns (the function's
// opening is a line of its own, before the first). NAP_TEST_CODE_CACHE=0 leaves jest's own
// compilation as it is.
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/**
 * By file name: the text compiled, the parameters of its function, and either the script it was
 * compiled as (until a later compile of the same text takes its cache) or that cache.
 * @type {Map<string, { code: string, params: string, script?: vm.Script, data?: Buffer }>}
 */
const modules = new Map();
const compileFunction = vm.compileFunction;

/** vm.compileFunction(code, params, options) for jest: the same function, compiled as a script with a cache. */
function compileModule(code, params, options) {
  const names = params.join(', ');
  let known = modules.get(options.filename);
  if (known !== undefined && (known.code !== code || known.params !== names)) known = undefined;
  if (known?.script !== undefined) {
    known.data = known.script.createCachedData();
    known.script = undefined;
  }
  const script = new vm.Script(`(function (${names}) {\n${code}\n})`, {
    filename: options.filename,
    lineOffset: -1,
    importModuleDynamically: options.importModuleDynamically,
    ...(known?.data !== undefined ? { cachedData: known.data } : {}),
  });
  if (known?.data === undefined || script.cachedDataRejected) modules.set(options.filename, { code, params: names, script });
  return script.runInContext(options.parsingContext);
}

if (process.env.NAP_TEST_CODE_CACHE !== '0') {
  vm.compileFunction = function compileFunctionWithCache(code, params, options) {
    // jest's calls only: a module's text compiled in a test file's context, with no cache given
    const jests =
      typeof code === 'string' &&
      Array.isArray(params) &&
      options?.parsingContext !== undefined &&
      typeof options.filename === 'string' &&
      options.cachedData === undefined &&
      options.produceCachedData === undefined;
    return jests ? compileModule(code, params, options) : compileFunction(code, params, options);
  };
}

module.exports = Runtime;
