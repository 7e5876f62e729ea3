package dev.parley.controller.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A client-visible failure with an HTTP status and a stable {@code code}; rendered as RFC 9457
 * problem+json by {@link ApiExceptionHandler}. Thrown inside a transaction it also rolls it back, so a
 * refused request writes nothing.
 */
public class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final transient Map<String, Object> extra = new LinkedHashMap<>();

    public ApiException(int status, String code, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.code = code;
    }

    public ApiException with(String key, Object value) {
        extra.put(key, value);
        return this;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public Map<String, Object> extra() {
        return extra;
    }

    public static ApiException badRequest(String code, String detail) {
        return new ApiException(400, code, detail);
    }

    public static ApiException notFound(String code, String detail) {
        return new ApiException(404, code, detail);
    }

    public static ApiException conflict(String code, String detail) {
        return new ApiException(409, code, detail);
    }

    public static ApiException forbidden(String code, String detail) {
        return new ApiException(403, code, detail);
    }

    public static ApiException unavailable(String code, String detail) {
        return new ApiException(503, code, detail);
    }
}
