package dev.bloomguard.spring.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * Fails startup on a name under {@code bloom-guard.} that no property has, naming it and the
 * closest valid name: binding ignores unknown names, so a misspelt {@code warmup.sql} would
 * otherwise leave a filter silently unwarmed. The valid names are read from
 * {@link BloomGuardProperties} itself, so a new property needs nothing here.
 *
 * <p>What a reader could get wrong: names compare in Boot's uniform form (lower case, dashes
 * and underscores dropped), as binding compares them, so {@code redisTimeout} and
 * {@code BLOOMGUARD_REDISTIMEOUT} are the known {@code redis-timeout}; and the element below
 * {@code filters} is a filter's name, where any name is valid.
 */
final class PropertyNames {

    private static final String ROOT = "bloom-guard";

    /** Stands for a map key (a filter's name) in a known name. */
    private static final String ANY = "*";

    /** How far a name may be from a valid one to be offered as its spelling. */
    private static final int CLOSE = 3;

    /** Every bindable name under {@code bloom-guard.}, as dashed elements with {@link #ANY} for map keys. */
    private final List<List<String>> known = new ArrayList<>();

    /** Known names below which anything binds: lists and maps of plain values. */
    private final List<List<String>> open = new ArrayList<>();

    private PropertyNames() {
        collect(BloomGuardProperties.class, List.of());
        // Not a property, but refused with its own explanation by BloomGuardRedisConfiguration.
        known.add(List.of("redis", "ssl", "bundle"));
    }

    /**
     * @throws BloomGuardConfigurationException naming every unknown {@code bloom-guard.*} name in
     *         {@code environment}, each with the closest valid name
     */
    static void requireKnown(Environment environment) {
        PropertyNames names = new PropertyNames();
        Map<String, Unknown> unknown = new LinkedHashMap<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            boolean environmentVariables = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
            iterable.stream().filter(name -> isChecked(name, environmentVariables))
                    .filter(name -> !names.isKnown(elements(name, Form.UNIFORM)))
                    .forEach(name -> unknown.putIfAbsent(name.toString(), new Unknown(elements(name, Form.UNIFORM),
                            elements(name, Form.ORIGINAL), origin(source.getConfigurationProperty(name)))));
        }
        if (!unknown.isEmpty()) {
            throw names.failure(unknown);
        }
    }

    /**
     * Whether {@code name} is one to check: its first element written {@code bloom-guard}, or an
     * environment variable's {@code BLOOMGUARD}; a system property such as
     * {@code bloomguard.regenerate} is not the starter's.
     */
    private static boolean isChecked(ConfigurationPropertyName name, boolean environmentVariable) {
        if (name.getNumberOfElements() < 2) {
            return false;
        }
        String first = name.getElement(0, Form.ORIGINAL);
        return first.equalsIgnoreCase(ROOT) || (environmentVariable && first.equalsIgnoreCase("bloomguard"));
    }

    /** The elements of {@code name} below {@code bloom-guard}, in {@code form}. */
    private static List<String> elements(ConfigurationPropertyName name, Form form) {
        List<String> elements = new ArrayList<>();
        for (int i = 1; i < name.getNumberOfElements(); i++) {
            elements.add(name.getElement(i, form));
        }
        return List.copyOf(elements);
    }

    /** Known when it is a known name, a group above one, or below an open one. */
    private boolean isKnown(List<String> elements) {
        for (List<String> name : known) {
            if (elements.size() <= name.size() && matches(name, elements)) {
                return true;
            }
        }
        for (List<String> name : open) {
            if (elements.size() > name.size() && matches(name, elements.subList(0, name.size()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(List<String> name, List<String> elements) {
        for (int i = 0; i < elements.size(); i++) {
            if (!name.get(i).equals(ANY) && !uniform(name.get(i)).equals(elements.get(i))) {
                return false;
            }
        }
        return true;
    }

    private BloomGuardConfigurationException failure(Map<String, Unknown> unknown) {
        StringBuilder description = new StringBuilder();
        StringBuilder action = new StringBuilder();
        unknown.forEach((name, written) -> {
            String closest = closest(written);
            boolean close = distance(uniform(String.join(".", written.uniform())),
                    uniform(closest.substring(ROOT.length() + 1))) <= CLOSE;
            description.append(description.length() == 0 ? "" : "\n").append(name)
                    .append(" is not a bloom-guard property")
                    .append(close ? "; did you mean " + closest + "?" : "; the closest valid name is " + closest + ".")
                    .append(written.origin());
            action.append(action.length() == 0 ? "" : "\n").append("Rename ").append(name).append(" to ")
                    .append(closest).append(", or remove it");
            int depth = written.uniform().size() - 1;
            Set<String> siblings = depth == 0 ? Set.of() : siblings(written.uniform().subList(0, depth));
            if (!siblings.isEmpty()) {
                action.append("; valid names under ").append(ROOT).append('.')
                        .append(String.join(".", written.original().subList(0, depth))).append(": ")
                        .append(String.join(", ", siblings));
            }
            action.append('.');
        });
        action.append("\nEvery property is described in docs/configuration.md.");
        return new BloomGuardConfigurationException(description.toString(), action.toString(), null);
    }

    /** The valid name nearest to the one {@code written}, with its map keys filled in as written. */
    private String closest(Unknown written) {
        String uniform = uniform(String.join(".", written.uniform()));
        return known.stream().flatMap(name -> prefixes(name).stream())
                .min(Comparator.comparingInt((List<String> name) -> distance(uniform,
                        uniform(concrete(name, written.uniform())))).thenComparingInt(List::size))
                .map(name -> ROOT + "." + concrete(name, written.original())).orElse(ROOT);
    }

    /** The last elements of the known names directly under {@code parent}. */
    private Set<String> siblings(List<String> parent) {
        return known.stream().filter(name -> name.size() > parent.size() && matches(name, parent))
                .map(name -> name.get(parent.size())).filter(element -> !element.equals(ANY))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<List<String>> prefixes(List<String> name) {
        List<List<String>> prefixes = new ArrayList<>();
        for (int i = 1; i <= name.size(); i++) {
            prefixes.add(name.subList(0, i));
        }
        return prefixes;
    }

    /** {@code name} as text, each {@link #ANY} replaced by the element written at its place. */
    private static String concrete(List<String> name, List<String> written) {
        List<String> elements = new ArrayList<>();
        for (int i = 0; i < name.size(); i++) {
            elements.add(name.get(i).equals(ANY) && i < written.size() ? written.get(i) : name.get(i));
        }
        return String.join(".", elements);
    }

    /** Walks the bean properties of {@code type}, as Boot's JavaBean binding sees them. */
    private void collect(Class<?> type, List<String> prefix) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")) {
                continue;
            }
            List<String> name = append(prefix, dashed(property.getName()));
            ResolvableType propertyType = ResolvableType.forMethodReturnType(property.getReadMethod());
            Class<?> resolved = propertyType.resolve(Object.class);
            if (Map.class.isAssignableFrom(resolved)) {
                Class<?> value = propertyType.asMap().getGeneric(1).resolve(Object.class);
                if (isGroup(value)) {
                    collect(value, append(name, ANY));
                }
                else {
                    known.add(append(name, ANY));
                    open.add(append(name, ANY));
                }
            }
            else if (Collection.class.isAssignableFrom(resolved) || resolved.isArray()) {
                known.add(name);
                open.add(name);
            }
            else if (isGroup(resolved)) {
                collect(resolved, name);
            }
            else {
                known.add(name);
            }
        }
    }

    /** A nested level of the starter's own properties, as opposed to a value. */
    private static boolean isGroup(Class<?> type) {
        return type.getName().startsWith(PropertyNames.class.getPackageName() + ".") && !type.isEnum();
    }

    private static List<String> append(List<String> prefix, String element) {
        List<String> name = new ArrayList<>(prefix);
        name.add(element);
        return List.copyOf(name);
    }

    /** {@code redisTimeout} as a property name: {@code redis-timeout}. */
    private static String dashed(String property) {
        return property.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    private static String uniform(String name) {
        return name.replace("-", "").replace("_", "").toLowerCase();
    }

    private static String origin(ConfigurationProperty property) {
        Origin origin = property == null ? null : property.getOrigin();
        return origin == null ? "" : " (" + origin + ")";
    }

    /** A name under {@code bloom-guard.} that no property has, as binding reads it and as it was written. */
    private record Unknown(List<String> uniform, List<String> original, String origin) {
    }

    /** Levenshtein distance: the fewest single-character edits that turn {@code from} into {@code to}. */
    static int distance(String from, String to) {
        int[] previous = new int[to.length() + 1];
        int[] current = new int[to.length() + 1];
        for (int j = 0; j <= to.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= from.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= to.length(); j++) {
                int substitution = previous[j - 1] + (from.charAt(i - 1) == to.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[to.length()];
    }
}
