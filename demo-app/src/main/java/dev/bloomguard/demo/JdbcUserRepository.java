package dev.bloomguard.demo;

import java.sql.PreparedStatement;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * {@link UserRepository} on plain JDBC. Counts every statement it sends, so that {@code /stats}
 * can show how many lookups actually reached the database.
 */
@Repository
class JdbcUserRepository implements UserRepository {

    private static final RowMapper<User> USER = (row, index) -> new User(row.getLong("id"), row.getString("name"),
            row.getString("email"));

    private final JdbcTemplate jdbc;
    private final AtomicLong queries = new AtomicLong();

    JdbcUserRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public Optional<User> findById(long id) {
        queries.incrementAndGet();
        List<User> users = jdbc.query("SELECT id, name, email FROM users WHERE id = ?", USER, id);
        return users.stream().findFirst();
    }

    /** The id comes from the table's identity column, which {@link UserTableSeeder} starts above the seeded ids. */
    @Override
    public User create(String name, String email) {
        queries.incrementAndGet();
        KeyHolder keys = new GeneratedKeyHolder();
        jdbc.update(connection -> {
            PreparedStatement insert = connection.prepareStatement("INSERT INTO users (name, email) VALUES (?, ?)",
                    new String[] { "id" });
            insert.setString(1, name);
            insert.setString(2, email);
            return insert;
        }, keys);
        Number id = keys.getKey();
        if (id == null) {
            throw new IllegalStateException("The database returned no id for the new user");
        }
        return new User(id.longValue(), name, email);
    }

    @Override
    public long databaseQueries() {
        return queries.get();
    }
}
