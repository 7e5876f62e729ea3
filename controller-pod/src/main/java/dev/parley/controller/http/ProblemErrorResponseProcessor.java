package dev.parley.controller.http;

import io.micronaut.context.annotation.Primary;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/**
 * Every error the framework produces itself (unknown route, wrong method, body too large, unsupported
 * media type, security rejections, conversion errors) also becomes problem+json with a stable code.
 * Details are generic so that nothing internal leaks.
 */
@Singleton
@Primary
public class ProblemErrorResponseProcessor implements ErrorResponseProcessor<String> {
    @Override
    public MutableHttpResponse<String> processResponse(ErrorContext errorContext, MutableHttpResponse<?> response) {
        int status = response.getStatus().getCode();
        String code = Problems.codeForStatus(status);
        String detail = switch (status) {
            case 401 -> "missing, malformed, forged or expired bearer token";
            case 413 -> "request body too large";
            case 404 -> "no such resource";
            default -> errorContext.getErrors().isEmpty() ? response.getStatus().getReason()
                    : sanitize(errorContext.getErrors().get(0).getMessage());
        };
        return response.contentType(Problems.PROBLEM_JSON).body(Problems.body(status, code, detail, null));
    }

    private static String sanitize(String s) {
        if (s == null) {
            return "error";
        }
        return s.length() > 200 ? s.substring(0, 200) : s;
    }
}
