export { abortError, sleepOn, checkDelay, type Clock, type TimerId } from './clock.ts';
export { SystemClock, type SystemClockOptions } from './system-clock.ts';
export { VirtualClock, type VirtualClockOptions } from './virtual-clock.ts';
