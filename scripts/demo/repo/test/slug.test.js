import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slug.js';

test('lower-cases the name', () => {
  assert.equal(slugify('Widget'), 'widget');
});
