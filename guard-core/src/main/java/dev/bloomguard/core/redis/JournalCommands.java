package dev.bloomguard.core.redis;

import static dev.bloomguard.core.redis.BitCommands.bytes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;

import dev.bloomguard.core.redis.LoadStore.JournalKeys;
import dev.bloomguard.core.redis.LoadStore.Staging;

/**
 * The commands of a load and of the adds journal ({@link LoadStore}): the staging upload, the load's
 * mark, the replay in bounded steps, the swap and the journal's upkeep; see {@link BitmapStore#swapIn}.
 */
final class JournalCommands implements LoadStore {

    private static final LuaScript REPLAY_SCRIPT = LuaScript.of("replay-function", "replay-journal");
    private static final LuaScript SWAP_SCRIPT = LuaScript.of("replay-function", "swap");
    private static final LuaScript MAINTAIN_SCRIPT = LuaScript.of("maintain-journal");
    private static final LuaScript BEGIN_LOAD_SCRIPT = LuaScript.of("begin-load");
    private static final LuaScript BLANK_IF_EQUALS = LuaScript.of("blank-if-equals");

    private final RedisCalls calls;
    private final ScriptCalls scripts;
    private final Duration operationTimeout;

    JournalCommands(RedisCalls calls, ScriptCalls scripts, Duration operationTimeout) {
        this.calls = calls;
        this.scripts = scripts;
        this.operationTimeout = operationTimeout;
    }

    @Override
    public void writeBitmap(String key, byte[] bitmap, Duration expiry) {
        byte[] rawKey = bytes(key);
        int first = Math.min(bitmap.length, BitCommands.UPLOAD_CHUNK_BYTES);
        calls.call("SET", operationTimeout,
                commands -> List.of(commands.set(rawKey, Arrays.copyOf(bitmap, first), SetArgs.Builder.px(expiry))));
        for (int offset = first; offset < bitmap.length; offset += BitCommands.UPLOAD_CHUNK_BYTES) {
            byte[] chunk = Arrays.copyOfRange(bitmap, offset, Math.min(bitmap.length, offset + BitCommands.UPLOAD_CHUNK_BYTES));
            long at = offset;
            calls.call("SETRANGE", operationTimeout, commands -> List.of(commands.setrange(rawKey, at, chunk)));
        }
    }

    @Override
    public long beginJournalLoad(JournalKeys journal, String token, byte[] mark, Duration ttl) {
        Long length = scripts.script("begin load", BEGIN_LOAD_SCRIPT, ScriptOutputType.INTEGER,
                new byte[][] { bytes(journal.loading()), bytes(journal.current()) }, bytes(token),
                bytes(Long.toString(ttl.toMillis())), mark);
        return length - 1;
    }

    @Override
    public long[] replayJournal(Staging staging, JournalKeys journal, String list, long start, int count,
            boolean verifyUpload) {
        byte[][] keys = { bytes(staging.key()), bytes(list), bytes(journal.current()), bytes(journal.loading()) };
        List<byte[]> arguments = new ArrayList<>(List.of(bytes(staging.token()), bytes(Long.toString(start)),
                bytes(Integer.toString(count)), staging.journalMark(), bytes(Long.toString(staging.markIndex()))));
        if (verifyUpload) {
            arguments.add(bytes(Long.toString(staging.length())));
            arguments.add(bytes(Long.toString(staging.population())));
        }
        List<Long> reply = scripts.script("replay", REPLAY_SCRIPT, ScriptOutputType.MULTI, keys, arguments.toArray(byte[][]::new));
        return new long[] { reply.get(0), reply.get(1) };
    }

    @Override
    public long swapIn(Staging staging, String live, JournalKeys journal, long tailStart, String metaKey,
            Map<String, String> meta) {
        byte[][] keys = { bytes(staging.key()), bytes(live), bytes(journal.current()), bytes(metaKey),
                bytes(journal.loading()), bytes(journal.dropped()) };
        List<byte[]> arguments = new ArrayList<>(List.of(bytes(staging.token()), bytes(Long.toString(staging.length())),
                staging.journalMark(), bytes(Long.toString(staging.markIndex())), bytes(Long.toString(tailStart))));
        meta.forEach((field, value) -> {
            arguments.add(bytes(field));
            arguments.add(bytes(value));
        });
        Long replayed = scripts.script("swap", SWAP_SCRIPT, ScriptOutputType.INTEGER, keys, arguments.toArray(byte[][]::new));
        return replayed == null ? BitmapStore.STAGING_ALTERED : replayed;
    }

    @Override
    public long maintainJournal(JournalKeys journal, Duration retention, long capacity) {
        byte[][] keys = { bytes(journal.current()), bytes(journal.previous()), bytes(journal.since()),
                bytes(journal.dropped()), bytes(journal.loading()) };
        Long dropped = scripts.script("maintain journal", MAINTAIN_SCRIPT, ScriptOutputType.INTEGER, keys,
                bytes(Long.toString(retention.toMillis())), bytes(Long.toString(capacity)));
        return dropped == null ? 0 : dropped;
    }

    @Override
    public long listLength(String key) {
        Long length = calls.call("LLEN", operationTimeout, commands -> List.of(commands.llen(bytes(key))));
        return length == null ? 0 : length;
    }

    @Override
    public void listBlankIfEquals(String key, long index, byte[] value) {
        scripts.script("blank", BLANK_IF_EQUALS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(Long.toString(index)), value);
    }
}
