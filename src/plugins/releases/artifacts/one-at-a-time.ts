/**
 * Runs the tasks given to it one after another, in the order given. Chunk uploads go through one
 * per instance: sentry-cli sends several requests at once, and each holds a few copies of its
 * chunks while they are checked and stored (multipart, gunzip, the driver's text), so what an
 * upload adds to the host's memory stays that of one request, however many arrive together.
 */
export class OneAtATime {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
