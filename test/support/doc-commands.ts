/**
 * The commands a document shows its reader: the lines of its shell blocks
 * (with the comments under them: what the command answers) and the inline
 * code spans that are commands.
 */
import { dirname } from 'node:path';

export interface Command {
  file: string;
  /** The line the command ends on (a `\` continuation joins the lines). */
  line: number;
  text: string;
  /** Runs inside the image: `docker exec …`, or prose about the container. */
  inContainer: boolean;
  /** A line of a shell block, not a code span of the prose. */
  inBlock: boolean;
  /** What the document says it answers: its trailing comment and the comment lines under it. */
  said: string[];
}

/** A command line that runs in a container, where Bun is on the PATH and npm is not. */
const CONTAINER_COMMAND = /\b(docker|podman)(-compose| compose)?( -f \S+)? (exec|run)\b/;
/** Prose about the image or a container, where `bun run …` is the right spelling. */
const CONTAINER_PROSE = /\b(docker|podman)\b|\bthe image\b|\bin the image\b|Dockerfile|container/i;
const SHELL_BLOCKS = new Set(['sh', 'bash', 'console', 'shell']);
/** The words a command starts with that the documents' checks know how to judge. */
const COMMAND_WORDS = new Set(['bun', 'bunx', 'npm', 'npx']);

/** The commands of one document: the lines of its shell blocks, and the inline code spans that are commands. */
export function commandsOf(file: string, text: string): Command[] {
  const commands: Command[] = [];
  const lines = text.split('\n');
  let fence: string | undefined;
  let paragraph: number[] = [];
  const spans: { line: number; text: string; paragraphStart: number }[] = [];
  const paragraphs = new Map<number, string>();
  let answered: Command | undefined;
  const closeParagraph = () => {
    if (paragraph.length > 0) {
      paragraphs.set(paragraph[0]!, paragraph.map((i) => lines[i]).join(' '));
    }
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const opening = /^\s*```(\w*)/.exec(line);
    if (opening) {
      closeParagraph();
      fence = fence === undefined ? opening[1] : undefined;
      answered = undefined;
      continue;
    }
    if (fence !== undefined) {
      if (!SHELL_BLOCKS.has(fence)) continue;
      const comment = /^\s*#\s?(.*)$/.exec(line);
      if (comment || line.trim() === '') {
        // A comment under a command says what it answers; a blank line ends that.
        if (comment && answered) answered.said.push(comment[1]!);
        else answered = undefined;
        continue;
      }
      let command = line;
      let last = index;
      // A `\` continues the line; so does a quote still open (a JSON body over lines).
      while ((command.endsWith('\\') || openQuote(command)) && last + 1 < lines.length) {
        last++;
        command = command.endsWith('\\')
          ? `${command.slice(0, -1)} ${lines[last]!.trim()}`
          : `${command}\n${lines[last]}`;
      }
      index = last;
      if (fence === 'console') {
        if (!command.startsWith('$ ')) continue; // output
        command = command.slice(2);
      }
      const trailing = /\s+#\s(.*)$/.exec(command);
      answered = {
        file,
        line: index + 1,
        text: trailing ? command.slice(0, trailing.index) : command,
        inContainer: CONTAINER_COMMAND.test(command),
        inBlock: true,
        said: trailing ? [trailing[1]!] : [],
      };
      commands.push(answered);
      continue;
    }
    // A paragraph ends at a blank line; each table row is one of its own.
    if (line.trim() === '' || line.startsWith('|')) closeParagraph();
    if (line.trim() !== '') paragraph.push(index);
    const start = paragraph[0] ?? index;
    for (const [, span] of line.matchAll(/`([^`]+)`/g)) {
      spans.push({ line: index + 1, text: span!.replaceAll('\\|', '|'), paragraphStart: start });
    }
    if (line.startsWith('|')) closeParagraph();
  }
  closeParagraph();
  for (const span of spans) {
    const words = withoutAssignments(span.text).split(/\s+/);
    // A lone `bun` or `npm` names the program; a command has arguments.
    if (!COMMAND_WORDS.has(words[0]!) || words.length < 2) continue;
    const prose = paragraphs.get(span.paragraphStart) ?? '';
    commands.push({
      file,
      line: span.line,
      text: span.text,
      inContainer: CONTAINER_COMMAND.test(span.text) || CONTAINER_PROSE.test(prose),
      inBlock: false,
      said: [],
    });
  }
  return commands;
}

/** Whether `text` ends inside a shell quote ('…' or "…"). */
function openQuote(text: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote === undefined) {
      if (char === '\\') i++;
      else if (char === "'" || char === '"') quote = char;
    } else if (char === quote) quote = undefined;
    else if (quote === '"' && char === '\\') i++;
  }
  return quote !== undefined;
}

/** A command without the `NAME=value` assignments before it. */
export function withoutAssignments(command: string): string {
  return command.trim().replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+/, '');
}

/** Node's and npm's folder plus the system's, without node_modules/.bin: what a reader's shell has. */
export function nodeOnlyPath(): string {
  const node = Bun.which('node');
  if (node === null) throw new Error('node is not on the PATH');
  const folders = [dirname(node), dirname(Bun.which('npm') ?? node), '/usr/bin', '/bin'];
  return [...new Set(folders)].join(':');
}
