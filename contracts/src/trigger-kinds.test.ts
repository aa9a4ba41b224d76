import { triggerKind } from './trigger-kinds';

it('names each kind of trigger in words, and one of another platform by its type', () => {
  expect(['schedule', 'endpoint', 'manual', 'eventSystem', 'kafka'].map(triggerKind)).toEqual([
    'schedule',
    'endpoint trigger',
    'manual trigger',
    'event trigger',
    'kafka trigger',
  ]);
});
