import type { JsonValue } from '../../events/envelope.js';
import type { FormatCheck } from '../formats/index.js';
import type { SchemaGraph } from '../graph.js';
import type { DataError } from '../results.js';
import { evaluate } from './evaluate.js';

export type EvaluatorOptions = {
  readonly formats: ReadonlyMap<string, FormatCheck> | null;
  readonly assertContent: boolean;
};

/** Compiles a resolved graph into a check that lists the data's errors (none: valid). */
export function createEvaluator(graph: SchemaGraph, options: EvaluatorOptions): (data: JsonValue) => DataError[] {
  const regexes = new Map<string, RegExp>();
  const regex = (source: string): RegExp => {
    let compiled = regexes.get(source);
    if (!compiled) {
      compiled = new RegExp(source, 'u');
      regexes.set(source, compiled);
    }
    return compiled;
  };
  const ctx = { graph, formats: options.formats, assertContent: options.assertContent, regex };
  return (data) => {
    const outcome = evaluate(ctx, graph.root.node, data, '', []);
    return outcome.valid ? [] : outcome.errors;
  };
}
