package dev.parley.controller.ownership;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.etcd.ControllerEntry;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.Registrar;
import dev.parley.platform.etcd.RegistryWatcher;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.etcd.TurnEntry;
import io.etcd.jetcd.Client;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

import java.time.Duration;

/** etcd beans: client, the process lease, our registry entry and the SFU/TURN views of our region. */
@Factory
public class EtcdFactory {
    private final ObjectMapper json = new ObjectMapper();

    @Singleton
    @Bean(preDestroy = "close")
    Client etcdClient(ParleyConfig cfg) {
        return Client.builder().endpoints(cfg.etcdEndpoints().toArray(String[]::new)).build();
    }

    @Singleton
    @Bean(preDestroy = "close")
    ProcessLease processLease(Client client, ParleyConfig cfg) {
        return new ProcessLease(client, cfg.leaseTtlSeconds(),
                Duration.ofMillis(cfg.leaseTtlSeconds() * 1000 / 2)).start();
    }

    @io.micronaut.context.annotation.Context
    @Bean(preDestroy = "close")
    Registrar controllerRegistrar(Client client, ProcessLease lease, ParleyConfig cfg) {
        return new Registrar(client, lease, EtcdKeys.controller(cfg.podName()),
                () -> new ControllerEntry(cfg.podName(), cfg.region(), cfg.publicUrl(), cfg.publicUrl(), lease.leaseId()),
                json, Duration.ofSeconds(3)).start();
    }

    @Singleton
    @Bean(preDestroy = "close")
    RegistryWatcher<SfuEntry> sfuWatcher(Client client, ParleyConfig cfg) {
        return RegistryWatcher.allSfus(client, json).start(); // placement filters by region (SfuSelector)
    }

    @Singleton
    @Bean(preDestroy = "close")
    RegistryWatcher<TurnEntry> turnWatcher(Client client, ParleyConfig cfg) {
        return RegistryWatcher.turns(client, cfg.region(), json).start();
    }
}
