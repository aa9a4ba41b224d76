/**
 * Runs state changes of one service instance (pause, resume, stop) one after another, in the order
 * asked, so that a resume asked during a pause waits for the pause to finish instead of racing it.
 */
export class SerialTransitions {
  private tail: Promise<void> = Promise.resolve();

  run(change: () => Promise<void>): Promise<void> {
    const next = this.tail.then(change);
    // a failed change must not block the ones after it; its caller sees the failure
    this.tail = next.catch(() => undefined);
    return next;
  }
}
