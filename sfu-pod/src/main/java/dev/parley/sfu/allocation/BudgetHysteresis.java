package dev.parley.sfu.allocation;

/**
 * Turns the raw estimate into the budget the allocator may spend: a falling estimate is followed at once
 * (sending more than the path carries builds queues and loss for everyone on it), a rising one only after
 * it has held for {@code holdMs}, and then only up to the lowest value it had during that time. This is what
 * keeps a subscriber from climbing to a layer on a momentary peak and falling back a second later.
 */
final class BudgetHysteresis {

    private final long holdMs;
    private long budgetBps = -1;
    private long riseStartMs;
    private long minSinceRise;
    private boolean rising;

    BudgetHysteresis(long holdMs) {
        this.holdMs = holdMs;
    }

    long update(long estimateBps, long nowMs) {
        if (budgetBps < 0 || estimateBps <= budgetBps) {
            budgetBps = estimateBps;
            rising = false;
            return budgetBps;
        }
        if (!rising) {
            rising = true;
            riseStartMs = nowMs;
            minSinceRise = estimateBps;
        } else {
            minSinceRise = Math.min(minSinceRise, estimateBps);
        }
        if (nowMs - riseStartMs >= holdMs) {
            budgetBps = minSinceRise;
            // keep watching from here: a still-rising estimate needs another hold for the next step
            riseStartMs = nowMs;
            minSinceRise = estimateBps;
        }
        return budgetBps;
    }

    long budgetBps() {
        return budgetBps;
    }
}
