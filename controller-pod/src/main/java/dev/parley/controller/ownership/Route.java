package dev.parley.controller.ownership;

import dev.parley.platform.etcd.ControllerEntry;

/** Where a meeting's commands must run: here (with our epoch) or at another controller. */
public sealed interface Route {
    record Local(long epoch) implements Route {
    }

    record Remote(ControllerEntry owner) implements Route {
    }
}
