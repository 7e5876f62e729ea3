package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;

/** The small messages signaling sends back on a socket. */
final class Replies {
    private Replies() {
    }

    /** {@code {"type": type}}. */
    static ObjectNode typed(String type) {
        ObjectNode o = JsonBody.obj();
        o.put("type", type);
        return o;
    }

    /** {@code {"type":"error","code":…,"detail":…}}. */
    static ObjectNode error(String code, String detail) {
        ObjectNode o = typed("error");
        o.put("code", code);
        o.put("detail", detail);
        return o;
    }
}
