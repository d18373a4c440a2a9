package dev.bloomguard.demo;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Counts the statements the application sends to its database, so that {@code /stats} can show
 * how many lookups actually reached it. Wraps the application's {@link DataSource}: every
 * statement any component prepares through it, Spring Data's included, is one.
 */
final class DatabaseStatements implements BeanPostProcessor {

    private static final Set<String> STATEMENT_FACTORIES = Set.of("createStatement", "prepareStatement", "prepareCall");

    private final AtomicLong statements = new AtomicLong();

    /** Statements prepared since startup, the seeding and the filter's warmup included. */
    long count() {
        return statements.get();
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DataSource dataSource && !(bean instanceof CountingDataSource)) {
            return new CountingDataSource(dataSource);
        }
        return bean;
    }

    private final class CountingDataSource extends DelegatingDataSource {

        CountingDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            return counting(super.getConnection());
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return counting(super.getConnection(username, password));
        }

        private Connection counting(Connection connection) {
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] { Connection.class },
                    (proxy, method, arguments) -> {
                        if (STATEMENT_FACTORIES.contains(method.getName())) {
                            statements.incrementAndGet();
                        }
                        try {
                            return method.invoke(connection, arguments);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getTargetException();
                        }
                    });
        }
    }
}
