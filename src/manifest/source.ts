// A manifest file parsed with its positions, so every later check can say file:line:col.
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import type { Diagnostic } from './diagnostics.ts';

export interface Position {
  line: number;
  column: number;
}

export class SourceFile {
  readonly doc: Document.Parsed;
  private readonly lines = new LineCounter();
  /** YAML syntax errors; when present the document is not checked further. */
  readonly syntaxErrors: Diagnostic[];

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    this.syntaxErrors = this.doc.errors.map((e) => {
      const pos = this.position(e.pos[0]);
      return {
        file,
        line: pos.line,
        column: pos.column,
        pointer: '',
        message: `YAML syntax error: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
        severity: 'error' as const,
      };
    });
  }

  /**
   * Plain scalars end at ` #`: in `prompt: Fix #${{ issue.number }}` everything from `#`
   * on is a YAML comment and silently dropped. A comment that starts with an expression
   * is that mistake, never intent.
   */
  truncatedByComment(): Diagnostic[] {
    const out: Diagnostic[] = [];
    visit(this.doc, {
      Scalar: (_key, node) => {
        if (node.type !== 'PLAIN' || !node.comment || !/^\s*\$\{\{/.test(node.comment) || !node.range) return;
        const pos = this.position(node.range[1]);
        out.push({
          file: this.file,
          line: pos.line,
          column: pos.column + 1,
          pointer: '',
          message: `\`#\` here starts a YAML comment, so \`#${node.comment.trim()}\` is dropped from the value; put the value in quotes`,
          severity: 'error',
        });
      },
    });
    return out;
  }

  /** The document as plain data (YAML 1.2 core types). */
  toJS(): unknown {
    return this.doc.toJS({ maxAliasCount: 100 });
  }

  position(offset: number): Position {
    const p = this.lines.linePos(offset);
    return { line: p.line, column: p.col };
  }

  /**
   * Where a JSON pointer points. `key: true` points at the key of the last segment
   * (for "unknown key" errors); a pointer that goes past the document stops at the
   * deepest node that exists.
   */
  locate(pointer: string, opts: { key?: boolean } = {}): Position {
    const segments = parsePointer(pointer);
    let node: unknown = this.doc.contents;
    let keyNode: Node | undefined;
    for (const seg of segments) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === seg);
        if (!pair) break;
        keyNode = pair.key as Node;
        node = pair.value ?? pair.key;
      } else if (isSeq(node)) {
        const item = node.items[Number(seg)];
        if (item === undefined) break;
        keyNode = undefined;
        node = item;
      } else break;
    }
    const target = (opts.key && keyNode ? keyNode : node) as Node | null | undefined;
    const offset = target?.range?.[0] ?? 0;
    return this.position(offset);
  }

  /**
   * The position of the n-th `${{` inside the scalar at `pointer`, found in the raw
   * source so that block scalars and quoting don't shift it.
   */
  locateExpression(pointer: string, n: number): Position {
    const node = this.nodeAt(pointer);
    if (!node?.range) return this.locate(pointer);
    const raw = this.text.slice(node.range[0], node.range[1]);
    let at = -1;
    for (let i = 0; i <= n; i++) {
      at = raw.indexOf('${{', at + 1);
      if (at === -1) return this.locate(pointer);
    }
    return this.position(node.range[0] + at);
  }

  private nodeAt(pointer: string): Node | undefined {
    let node: unknown = this.doc.contents;
    for (const seg of parsePointer(pointer)) {
      if (isMap(node)) node = node.get(seg, true);
      else if (isSeq(node)) node = node.items[Number(seg)];
      else return undefined;
    }
    return node as Node | undefined;
  }
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function joinPointer(...segments: (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
