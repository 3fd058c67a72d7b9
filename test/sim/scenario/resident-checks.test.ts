/**
 * The residents of a scenario and the events that act on them (docs/spec.md §12.2, the children of §10): a
 * resident takes only declared, unassigned inputchs, each once; its grants name declared outputs and
 * tools; `destroy` names a resident and `stopAgent` the root or a resident. Each broken rule is one
 * problem at the path of the offending name, with a message that names it and what is declared.
 */
import { describe, expect, it } from 'vitest';
import { doc, ok, problems } from './helpers.ts';

const channels = [{ name: 'qq/support' }, { name: 'qq/sales', owner: '' }, { name: 'qq/ops', owner: 'root' }];

describe('residents: inputchs (docs/spec.md §12.2, §10.1)', () => {
  it('a resident may take a channel with no owner, an empty owner (unassigned) or the root as owner', () => {
    const s = ok(doc({ channels, residents: [{ id: 'w', inputChs: ['qq/support', 'qq/sales', 'qq/ops'] }] }));
    expect(s.residents[0]?.inputChs).toEqual(['qq/support', 'qq/sales', 'qq/ops']);
  });

  it('an inputch not declared in channels is named, with the declared channels', () => {
    const json = doc({ channels, residents: [{ id: 'a' }, { id: 'w', inputChs: ['qq/support', 'qq/typo'] }] });
    expect(problems(json)).toEqual([
      {
        path: 'residents[1].inputChs[1]',
        message: "inputch 'qq/typo' is not declared in channels (declared: qq/support, qq/sales, qq/ops)",
      },
    ]);
  });

  it('without channels, the message says none are declared', () => {
    expect(problems(doc({ residents: [{ id: 'w', inputChs: ['qq/support'] }] }))).toEqual([
      {
        path: 'residents[0].inputChs[0]',
        message: "inputch 'qq/support' is not declared in channels (declared: none)",
      },
    ]);
  });

  it('an undeclared inputch claims nothing: a second resident naming it gets the same problem, not "already taken"', () => {
    const json = doc({
      residents: [
        { id: 'a', inputChs: ['x/y'] },
        { id: 'b', inputChs: ['x/y'] },
      ],
    });
    expect(problems(json).map((p) => p.message)).toEqual([
      "inputch 'x/y' is not declared in channels (declared: none)",
      "inputch 'x/y' is not declared in channels (declared: none)",
    ]);
  });

  it('a channel owned by another agent cannot be taken', () => {
    const json = doc({
      channels: [{ name: 'qq/support', owner: 'helper' }],
      residents: [{ id: 'w', inputChs: ['qq/support'] }],
    });
    expect(problems(json)).toEqual([
      {
        path: 'residents[0].inputChs[0]',
        message: "inputch 'qq/support' is owned by 'helper' in channels; a resident takes only unassigned inputchs",
      },
    ]);
  });

  it('an inputch is taken once: every later claim names the first resident that took it', () => {
    const json = doc({
      channels,
      residents: [
        { id: 'first', inputChs: ['qq/support'] },
        { id: 'second', inputChs: ['qq/sales', 'qq/support'] },
        { id: 'third', inputChs: ['qq/support'] },
      ],
    });
    expect(problems(json)).toEqual([
      { path: 'residents[1].inputChs[1]', message: "inputch 'qq/support' is already taken by resident 'first'" },
      { path: 'residents[2].inputChs[0]', message: "inputch 'qq/support' is already taken by resident 'first'" },
    ]);
  });
});

describe('residents: granted outputs and tools (docs/spec.md §12.2, §8.4)', () => {
  it('grants that name declared outputs and tools are accepted', () => {
    const s = ok(
      doc({
        outputs: [{ name: 'qq' }, { name: 'mail' }],
        tools: { search: { durationMs: 1 } },
        residents: [{ id: 'w', allowedOutputs: ['mail', 'qq'], tools: ['search'] }],
      }),
    );
    expect(s.residents[0]).toMatchObject({ allowedOutputs: ['mail', 'qq'], tools: ['search'] });
  });

  it('an output not declared in outputs is named, with the declared outputs', () => {
    const json = doc({
      outputs: [{ name: 'qq' }, { name: 'mail' }],
      residents: [{ id: 'a' }, { id: 'w', allowedOutputs: ['qq', 'sms'] }],
    });
    expect(problems(json)).toEqual([
      {
        path: 'residents[1].allowedOutputs[1]',
        message: "output 'sms' is not declared in outputs (declared: qq, mail)",
      },
    ]);
  });

  it('an output entry without a name declares nothing (the shape pass reports it)', () => {
    const json = doc({
      outputs: [{ name: 'qq' }, { caps: ['text'] }],
      residents: [{ id: 'w', allowedOutputs: ['sms'] }],
    });
    expect(problems(json)).toContainEqual({
      path: 'residents[0].allowedOutputs[0]',
      message: "output 'sms' is not declared in outputs (declared: qq)",
    });
    const nameless = doc({ outputs: [{ caps: ['text'] }], residents: [{ id: 'w', allowedOutputs: ['sms'] }] });
    expect(problems(nameless)).toContainEqual({
      path: 'residents[0].allowedOutputs[0]',
      message: "output 'sms' is not declared in outputs (declared: none)",
    });
  });

  it('a tool not declared in tools is named, with the declared tools, or none', () => {
    const json = doc({
      tools: { search: { durationMs: 1 } },
      residents: [{ id: 'a' }, { id: 'w', tools: ['search', 'fetch'] }],
    });
    expect(problems(json)).toEqual([
      { path: 'residents[1].tools[1]', message: "tool 'fetch' is not declared in tools (declared: search)" },
    ]);
    expect(problems(doc({ residents: [{ id: 'w', tools: ['fetch'] }] }))).toEqual([
      { path: 'residents[0].tools[0]', message: "tool 'fetch' is not declared in tools (declared: none)" },
    ]);
  });
});

describe('events on residents (docs/spec.md §12.2, §10.3)', () => {
  it('destroy may name a resident; stopAgent the root or a resident', () => {
    const events = [
      { at: 1, destroy: { id: 'w' } },
      { at: 2, stopAgent: 'root' },
      { at: 3, stopAgent: 'w' },
    ];
    expect(ok(doc({ residents: [{ id: 'w' }], events })).events).toHaveLength(3);
  });

  it('destroy and stopAgent of an agent that is not declared are named, with the declared residents', () => {
    const events = [
      { at: 0, stopAgent: 'root' },
      { at: 1, destroy: { id: 'ghost' } },
      { at: 2, stopAgent: 'phantom' },
    ];
    expect(problems(doc({ residents: [{ id: 'w' }], events }))).toEqual([
      {
        path: 'events[1].destroy.id',
        message: `unknown agent 'ghost': must be "root" or a declared resident id (declared residents: w)`,
      },
      {
        path: 'events[2].stopAgent',
        message: `unknown agent 'phantom': must be "root" or a declared resident id (declared residents: w)`,
      },
    ]);
  });
});

describe('residents and the tree bounds (docs/spec.md §12.2, §10.2)', () => {
  const residents = (n: number): { id: string }[] => Array.from({ length: n }, (_, i) => ({ id: `r${i + 1}` }));

  it('the root takes at most kernel.maxChildren residents: the first one beyond is named, with the fix', () => {
    expect(ok(doc({ kernel: { maxChildren: 2 }, residents: residents(2) })).residents).toHaveLength(2);
    expect(problems(doc({ kernel: { maxChildren: 2 }, residents: residents(3) }))).toEqual([
      {
        path: 'residents[2]',
        message:
          'the root takes at most kernel.maxChildren = 2 children, and 3 residents are declared; raise kernel.maxChildren or declare fewer',
      },
    ]);
  });

  it('without kernel.maxChildren the kernel default (64) applies', () => {
    expect(ok(doc({ residents: residents(64) })).residents).toHaveLength(64);
    expect(problems(doc({ residents: residents(65) })).map((p) => p.path)).toEqual(['residents[64]']);
  });
});
