package dev.parley.controller.e2ee;

import java.util.Base64;

/** Length checks of base64url fields: the controller reads the sizes of keys and envelopes, never their content. */
final class Base64Url {
    private Base64Url() {
    }

    /** The decoded length, or -1 when {@code text} is not unpadded base64url. */
    static int decodedLength(String text) {
        if (text == null || text.isEmpty() || text.length() > 4096) {
            return -1;
        }
        try {
            return Base64.getUrlDecoder().decode(text).length;
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }
}
