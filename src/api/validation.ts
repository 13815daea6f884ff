import type { z } from 'zod';
import type { FieldFailure } from '@/kernel/errors';
import { own } from './field-failures';

type Issue = z.core.$ZodIssue;

const typeNames: Record<string, string> = { int: 'an integer', number: 'a number' };

/**
 * Names a zod issue after the validator rule of the 422 `validationMessages`
 * (isEmpty, notInArray, notBetween, stringLengthTooLong, invalidType, ...).
 * Custom refinements carry their own rule in `params.rule`.
 */
function ruleOf(issue: Issue, input: unknown): [rule: string, message: string] {
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return ['isEmpty', "Value is required and can't be empty"];
      return [
        'invalidType',
        `The input must be ${typeNames[issue.expected] ?? `of type ${issue.expected}`}`,
      ];
    case 'invalid_value':
      if (input === undefined) return ['isEmpty', "Value is required and can't be empty"];
      // The sentence clients may match on, then what would have been accepted.
      return [
        'notInArray',
        `The input was not found in the haystack; allowed: ${issue.values.map(String).join(', ')}`,
      ];
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) <= 1)
        return ['isEmpty', "Value is required and can't be empty"];
      if (issue.origin === 'string')
        return ['stringLengthTooShort', `The input is less than ${issue.minimum} characters long`];
      if (issue.origin === 'array' || issue.origin === 'set')
        return ['tooFewItems', `The input must contain at least ${issue.minimum} items`];
      return ['notBetween', issue.message];
    case 'too_big':
      if (issue.origin === 'string')
        return ['stringLengthTooLong', `The input is more than ${issue.maximum} characters long`];
      if (issue.origin === 'array' || issue.origin === 'set')
        return ['tooManyItems', `The input must contain at most ${issue.maximum} items`];
      return ['notBetween', issue.message];
    case 'invalid_format':
      return [`${issue.format}InvalidFormat`, `The input is not a valid ${issue.format}`];
    case 'not_multiple_of':
      return ['notStep', issue.message];
    case 'custom': {
      const rule = (issue.params as { rule?: string } | undefined)?.rule;
      return [rule ?? 'callbackValue', issue.message];
    }
    default:
      return ['invalid', issue.message];
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = own(node, key);
  }
  return node;
}

export interface MappedIssues {
  /** Each rule a field broke, in the order zod reported them. */
  failures: FieldFailure[];
  /** True when the body itself is the wrong shape (not an object): a 400, not a 422. */
  rootInvalid: boolean;
}

export function mapIssues(issues: readonly Issue[], input: unknown): MappedIssues {
  const failures: FieldFailure[] = [];
  let rootInvalid = false;
  const add = (path: readonly PropertyKey[], rule: string, message: string) => {
    if (path.length === 0) rootInvalid = true;
    else failures.push({ path: path.map(String), rule, message });
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        add([...issue.path, key], 'notAllowed', 'The field is not allowed');
      continue;
    }
    const [rule, message] = ruleOf(issue, valueAt(input, issue.path));
    add(issue.path, rule, message);
  }
  return { failures, rootInvalid };
}
