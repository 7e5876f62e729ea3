package dev.parley.controller.control;

/** A parsed control cursor {@code {epoch}.{seq}}; null when malformed. */
public record Cursor(long epoch, long seq) {
    public static Cursor parse(String s) {
        if (s == null || s.length() > 41) {
            return null;
        }
        int dot = s.indexOf('.');
        if (dot <= 0 || dot == s.length() - 1) {
            return null;
        }
        try {
            long e = Long.parseLong(s.substring(0, dot));
            long q = Long.parseLong(s.substring(dot + 1));
            return e < 0 || q < 0 ? null : new Cursor(e, q);
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    @Override
    public String toString() {
        return epoch + "." + seq;
    }
}
