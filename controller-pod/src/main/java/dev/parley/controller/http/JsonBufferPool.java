package dev.parley.controller.http;

import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;

/**
 * Jackson's buffers shared across threads. Jackson keeps its parse/generate buffers per thread by default, and every
 * request here runs on a new virtual thread, so each request allocated fresh buffers (tens of KB) for each body it
 * read or wrote. A process-wide pool lets requests reuse them (bench/controller/README.md, "Seventh session").
 */
@Singleton
final class JsonBufferPool implements BeanCreatedEventListener<ObjectMapper> {
    @Override
    public ObjectMapper onCreated(BeanCreatedEvent<ObjectMapper> event) {
        ObjectMapper mapper = event.getBean();
        mapper.getFactory().setRecyclerPool(JsonRecyclerPools.sharedConcurrentDequePool());
        return mapper;
    }
}
