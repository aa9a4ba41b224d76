import type { Command } from 'commander';
import { usage } from './errors';
import { RESOURCES } from './resources/registry';

/**
 * Completion scripts, written from the command tree: commands, their subcommands, the resource
 * words after the asset verbs (after enable and disable, the ones that can be switched), and every
 * long flag. Static, so completing never runs a request.
 */
interface Node {
  path: string;
  words: string[];
}

const ASSET_VERBS = new Set(['get', 'describe', 'create', 'delete', 'import', 'export', 'copy']);

function nodes(program: Command): { nodes: Node[]; globals: string[] } {
  const globals = program.options.map((o) => o.long).filter((l): l is string => l !== undefined);
  const out: Node[] = [];
  const resources = RESOURCES.flatMap((r) => [r.plural, r.singular]);
  const toggleable = RESOURCES.filter((r) => r.toggle !== undefined).flatMap((r) => [r.plural, r.singular]);
  const walk = (cmd: Command, path: string): void => {
    const flags = cmd.options.map((o) => o.long).filter((l): l is string => l !== undefined);
    const subs = cmd.commands.map((c) => c.name());
    let words = [...subs, ...flags];
    if (ASSET_VERBS.has(path)) words = [...resources, ...flags];
    if (path === 'enable' || path === 'disable') words = [...toggleable, ...flags];
    if (path === 'start' || path === 'stop' || path === 'restart') words = ['application', 'adapter'];
    if (path === 'inspect') words = ['server', 'applications'];
    if (path === 'api') words = ['get', 'post', 'put', 'patch', 'delete', ...flags];
    if (path === 'completion') words = ['bash', 'zsh'];
    if (path === 'tags list' || path === 'tags add' || path === 'tags remove')
      words = ['workflow', 'transformation', 'template', 'form', ...flags];
    out.push({ path, words });
    for (const sub of cmd.commands) walk(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  walk(program, '');
  return { nodes: out, globals };
}

/** The commands that group subcommands (`run`, `jobs`, `tasks`, `audit`): their next word is part of the command. */
function groups(program: Command): string[] {
  return program.commands.filter((c) => c.commands.length > 0).map((c) => c.name());
}

/** The words of a node and the global flags, each once (the root's flags are the global ones). */
function withGlobals(words: readonly string[], globals: readonly string[]): string {
  return [...new Set([...words, ...globals])].join(' ');
}

function bash(program: Command): string {
  const { nodes: all, globals } = nodes(program);
  const cases = all.map((n) => `    "${n.path}") words="${withGlobals(n.words, globals)}" ;;`).join('\n');
  return `# bash completion for nap: eval "$(nap completion bash)"
_nap_complete() {
  local cur napcmd="" i w words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case "\${COMP_WORDS[i-1]}" in --profile|-o|--output|--config|-f|--file|--path|--repository|--reference|--from|--to) continue ;; esac
    if [[ -z "$napcmd" ]]; then napcmd="$w"; elif [[ ${groups(program)
      .map((g) => `"$napcmd" == "${g}"`)
      .join(' || ')} ]]; then napcmd="$napcmd $w"; else break; fi
  done
  case "\${COMP_WORDS[COMP_CWORD-1]}" in
    -o|--output) COMPREPLY=( $(compgen -W "human json yaml" -- "$cur") ); return ;;
    -f|--file|--config|--path|--vars) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
  esac
  case "$napcmd" in
${cases}
    *) words="${globals.join(' ')}" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _nap_complete nap
`;
}

function zsh(program: Command): string {
  const { nodes: all, globals } = nodes(program);
  const cases = all.map((n) => `    "${n.path}") cands=(${withGlobals(n.words, globals)}) ;;`).join('\n');
  return `#compdef nap
# zsh completion for nap: eval "$(nap completion zsh)", or save as _nap in your $fpath
_nap() {
  local -a cands args
  local napcmd="" w prev
  args=(\${words[2,CURRENT-1]})
  for w in $args; do
    [[ $w == -* ]] && continue
    if [[ -z $napcmd ]]; then napcmd=$w; elif [[ ${groups(program)
      .map((g) => `$napcmd == ${g}`)
      .join(' || ')} ]]; then napcmd="$napcmd $w"; else break; fi
  done
  prev=\${words[CURRENT-1]}
  case $prev in
    -o|--output) compadd human json yaml; return ;;
    -f|--file|--config|--path|--vars) _files; return ;;
  esac
  case $napcmd in
${cases}
    *) cands=(${globals.join(' ')}) ;;
  esac
  compadd -- $cands
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _nap "$@"; else compdef _nap nap; fi
`;
}

export function completionScript(shell: string, program: Command): string {
  if (shell === 'bash') return bash(program);
  if (shell === 'zsh') return zsh(program);
  throw usage(`nap completion ${shell}: one of bash, zsh`);
}
