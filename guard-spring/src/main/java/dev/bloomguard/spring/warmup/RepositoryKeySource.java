package dev.bloomguard.spring.warmup;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyType;

/**
 * Keys from a {@link Stream}: a Spring Data repository's streaming query method
 * ({@code Stream<Long> findAllIds()}, a projection, {@code streamAllBy()}), a
 * {@code JdbcTemplate.queryForStream}, a MongoDB cursor, any stream that reads what exists now.
 *
 * <pre>{@code
 * @Bean
 * @BloomKeySource("user")
 * KeySource userIds(UserRepository users, PlatformTransactionManager transactions) {
 *     return RepositoryKeySource.of("users.findAllIds", users::findAllIds).inTransaction(transactions);
 * }
 * }</pre>
 *
 * <p>The one thing easy to get wrong is the {@code definition}: it is the source's fingerprint,
 * so change it when the stream starts returning other keys (a new query, a new filter on it) and
 * every instance reloads the filter; keep it while only the data changes. Streaming query methods
 * of JPA, and cursors of PostgreSQL, need a transaction around the read:
 * {@link #inTransaction(PlatformTransactionManager)} opens a read-only one on the loading thread
 * for as long as the stream is open, and rolls it back when the stream closes. {@code CrudRepository.findAll()} reads every row into memory
 * first; use a streaming method instead.
 */
public final class RepositoryKeySource implements KeySource {

    private static final int ADD_BATCH = 1_000;

    private final String definition;
    private final Supplier<? extends Stream<?>> keys;
    private final PlatformTransactionManager transactions;
    private final TransactionDefinition transaction;
    private final Since since;

    /** What {@link #withCatchUp} was given. */
    private record Since(Duration interval, Duration overlap, Function<Instant, ? extends Stream<?>> keys) {
    }

    private RepositoryKeySource(String definition, Supplier<? extends Stream<?>> keys,
            PlatformTransactionManager transactions, TransactionDefinition transaction, Since since) {
        this.definition = definition;
        this.keys = keys;
        this.transactions = transactions;
        this.transaction = transaction;
        this.since = since;
    }

    /**
     * A source whose stream returns the keys themselves.
     *
     * @param definition names what the stream reads, e.g. {@code "users.findAllIds"}; its hash is
     *     the {@link #fingerprint}
     * @throws IllegalArgumentException when {@code definition} is blank
     */
    public static RepositoryKeySource of(String definition, Supplier<? extends Stream<?>> keys) {
        if (definition == null || definition.isBlank()) {
            throw new IllegalArgumentException("definition (" + definition + ") must name what the stream reads");
        }
        return new RepositoryKeySource(definition, Objects.requireNonNull(keys, "keys"), null, null, null);
    }

    /**
     * A source whose stream returns entities or projections, each turned into its key by
     * {@code key} (e.g. {@code User::getId}).
     */
    public static <T> RepositoryKeySource of(String definition, Supplier<? extends Stream<T>> rows,
            Function<? super T, ?> key) {
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(key, "key");
        return of(definition, () -> rows.get().map(key));
    }

    /** This source, its stream read inside a read-only transaction of {@code transactions}. */
    public RepositoryKeySource inTransaction(PlatformTransactionManager transactions) {
        DefaultTransactionDefinition readOnly = new DefaultTransactionDefinition();
        readOnly.setReadOnly(true);
        return inTransaction(transactions, readOnly);
    }

    /**
     * This source, its stream read inside a transaction of {@code transactions} as
     * {@code transaction} defines it (a timeout, an isolation level, or not read-only for a query
     * that writes, e.g. calls a function that counts its calls). It is always rolled back.
     */
    public RepositoryKeySource inTransaction(PlatformTransactionManager transactions,
            TransactionDefinition transaction) {
        return new RepositoryKeySource(definition, keys, Objects.requireNonNull(transactions, "transactions"),
                Objects.requireNonNull(transaction, "transaction"), since);
    }

    /**
     * This source, adding every {@code interval} the keys {@code keysSince} returns for a time:
     * the start of the previous load or catch-up, less {@code overlap}, on this application's
     * clock. Make {@code overlap} longer than the longest transaction that writes these keys (its
     * timestamp is taken before it commits) plus any skew between this clock and the one that
     * stamps the rows. Read in this source's transaction, if it has one.
     *
     * @throws IllegalArgumentException when {@code interval} is not positive or {@code overlap} is negative
     */
    public RepositoryKeySource withCatchUp(Duration interval, Duration overlap,
            Function<Instant, ? extends Stream<?>> keysSince) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval (" + interval + ") must be positive");
        }
        if (overlap == null || overlap.isNegative()) {
            throw new IllegalArgumentException("overlap (" + overlap + ") must not be negative");
        }
        return new RepositoryKeySource(definition, keys, transactions, transaction,
                new Since(interval, overlap, Objects.requireNonNull(keysSince, "keysSince")));
    }

    @Override
    public Optional<CatchUp> catchUp() {
        return since == null ? Optional.empty() : Optional.of(new CatchUp() {

            @Override
            public Duration interval() {
                return since.interval();
            }

            @Override
            public Instant now() {
                return Instant.now();
            }

            @Override
            public Instant addSince(RedisBloomFilter filter, Instant from) {
                Instant started = now();
                try (Stream<?> written = read(() -> since.keys().apply(from.minus(since.overlap())))) {
                    List<Object> batch = new ArrayList<>(ADD_BATCH);
                    for (Iterator<?> keys = written.iterator(); keys.hasNext();) {
                        Object key = keys.next();
                        if (key != null) {
                            batch.add(key);
                        }
                        if (batch.size() == ADD_BATCH) {
                            filter.addAll(batch);
                            batch.clear();
                        }
                    }
                    filter.addAll(batch);
                }
                return started;
            }
        });
    }

    @Override
    public Stream<?> keys(RedisBloomFilter filter) {
        return read(keys);
    }

    private Stream<?> read(Supplier<? extends Stream<?>> stream) {
        if (transactions == null) {
            return stream.get();
        }
        TransactionStatus status = transactions.getTransaction(transaction);
        try {
            return stream.get().onClose(() -> transactions.rollback(status));
        }
        catch (RuntimeException | Error ex) {
            transactions.rollback(status);
            throw ex;
        }
    }

    /**
     * A hash of the definition and of {@code filter}'s key type: keys loaded under another key
     * type sit in the filter in another canonical form.
     */
    @Override
    public String fingerprint(RedisBloomFilter filter) {
        Optional<KeyType> keyType = filter.keyType();
        String identity = definition + "\n-- key-type: " + keyType.map(KeyType::id).orElse("");
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return "stream:" + HexFormat.of().formatHex(hash).substring(0, 16);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java platform has SHA-256", ex);
        }
    }

    @Override
    public String description() {
        return "stream " + definition;
    }

    @Override
    public String toString() {
        return "RepositoryKeySource[" + definition + "]";
    }
}
