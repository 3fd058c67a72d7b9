/**
 * A tiny XML 1.0 reader for tests: it parses a document into elements, or throws saying where it is
 * not well-formed. It knows what reports written by this project use — an XML declaration, elements,
 * attributes in double or single quotes, character data, the five predefined entities and character
 * references — and refuses everything else (comments, CDATA, DOCTYPE, processing instructions after the
 * declaration), so a document it accepts is well-formed XML.
 */

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** The character data directly inside this element, references decoded. */
  readonly text: string;
}

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function parseXml(source: string): XmlElement {
  let i = 0;
  const fail = (why: string): never => {
    const line = source.slice(0, i).split('\n').length;
    throw new Error(`not well-formed XML at line ${line} (offset ${i}): ${why}`);
  };
  for (const ch of source) {
    const c = ch.codePointAt(0) ?? 0;
    const allowed =
      c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000;
    if (!allowed) fail(`the character U+${c.toString(16).padStart(4, '0')} is not allowed in XML`);
  }
  const isNameStart = (ch: string): boolean => /[A-Za-z_:]/.test(ch);
  const isName = (ch: string): boolean => /[A-Za-z0-9_:.-]/.test(ch);
  const skipSpace = (): void => {
    while (i < source.length && ' \t\r\n'.includes(source[i] ?? '')) i += 1;
  };
  const name = (): string => {
    const start = i;
    if (!isNameStart(source[i] ?? '')) fail('a name was expected');
    while (i < source.length && isName(source[i] ?? '')) i += 1;
    return source.slice(start, i);
  };
  const reference = (): string => {
    const end = source.indexOf(';', i);
    if (end < 0) fail('"&" that starts no reference');
    const body = source.slice(i + 1, end);
    i = end + 1;
    if (body.startsWith('#x')) return String.fromCodePoint(numeric(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(numeric(body.slice(1), 10));
    const value = PREDEFINED[body];
    if (value === undefined) fail(`unknown entity &${body};`);
    return value ?? '';
  };
  const numeric = (digits: string, radix: number): number => {
    const n = digits === '' || !/^[0-9a-fA-F]+$/.test(digits) ? NaN : parseInt(digits, radix);
    if (!Number.isInteger(n)) fail(`bad character reference "${digits}"`);
    return n;
  };
  const attributeValue = (): string => {
    const quote = source[i];
    if (quote !== '"' && quote !== "'") return fail('an attribute value must be quoted');
    i += 1;
    let value = '';
    while (source[i] !== quote) {
      const ch = source[i];
      if (ch === undefined) fail('unterminated attribute value');
      if (ch === '<') fail('"<" inside an attribute value');
      if (ch === '&') value += reference();
      else {
        // A literal tab or line break in an attribute is normalized to a space (XML 1.0 §3.3.3).
        value += ch === '\t' || ch === '\n' || ch === '\r' ? ' ' : ch;
        i += 1;
      }
    }
    i += 1;
    return value;
  };
  const element = (): XmlElement => {
    i += 1; // '<'
    const tag = name();
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = i;
      skipSpace();
      if (source.startsWith('/>', i)) {
        i += 2;
        return { name: tag, attributes, children: [], text: '' };
      }
      if (source[i] === '>') {
        i += 1;
        break;
      }
      if (i === before) fail(`space expected before an attribute of <${tag}>`);
      const key = name();
      if (key in attributes) fail(`attribute ${key} repeated on <${tag}>`);
      skipSpace();
      if (source[i] !== '=') fail(`"=" expected after the attribute ${key}`);
      i += 1;
      skipSpace();
      attributes[key] = attributeValue();
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      const ch = source[i];
      if (ch === undefined) fail(`<${tag}> is never closed`);
      if (source.startsWith('</', i)) {
        i += 2;
        const closing = name();
        if (closing !== tag) fail(`</${closing}> closes <${tag}>`);
        skipSpace();
        if (source[i] !== '>') fail(`">" expected to end </${closing}`);
        i += 1;
        return { name: tag, attributes, children, text };
      }
      if (source.startsWith(']]>', i)) fail('"]]>" in character data');
      if (ch === '<') {
        if (source.startsWith('<!', i) || source.startsWith('<?', i))
          fail('comments, CDATA, DOCTYPE and processing instructions are not expected here');
        children.push(element());
      } else if (ch === '&') {
        text += reference();
      } else {
        text += ch;
        i += 1;
      }
    }
  };

  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) fail('unterminated XML declaration');
    i = end + 2;
  }
  skipSpace();
  if (source[i] !== '<') fail('the root element was expected');
  const root = element();
  skipSpace();
  if (i !== source.length) fail('content after the root element');
  return root;
}

/** The children of `parent` named `name`. */
export function childrenNamed(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((c) => c.name === name);
}
