package dev.bloomguard.spring.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;

import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.BloomKeySource;
import dev.bloomguard.spring.warmup.KeySource;

/**
 * Which bean feeds which filter: {@link BloomKeySource} on a bean, or
 * {@code bloom-guard.filters.<name>.source-bean}. Read from bean definitions, so that a mistake
 * fails startup, naming the filter, before any source bean is created.
 *
 * <p>The one thing easy to get wrong: the annotation and the property may both name the same
 * bean (that is one claim), but a filter fed by a bean must not also have {@code warmup.sql}:
 * two sources of truth would make the fingerprint, and so the re-warm, depend on which won.
 */
final class KeySourceBeans {

    private KeySourceBeans() {
    }

    /**
     * The source bean's name of each filter that has one.
     *
     * @throws BloomGuardConfigurationException naming the filter when a claim cannot be honoured
     */
    static Map<String, String> resolve(BloomGuardProperties properties, BeanFactory beanFactory) {
        Map<String, String> claims = new LinkedHashMap<>();
        if (beanFactory instanceof ListableBeanFactory beans) {
            for (String bean : beans.getBeanNamesForAnnotation(BloomKeySource.class)) {
                BloomKeySource annotation = beans.findAnnotationOnBean(bean, BloomKeySource.class);
                String filter = annotation.value();
                String claim = "@BloomKeySource(\"" + filter + "\") on bean '" + bean + "'";
                if (!properties.getFilters().containsKey(filter)) {
                    throw new BloomGuardConfigurationException(claim + " names filter '" + filter + "', but filter '"
                            + filter + "' is not configured under bloom-guard.filters; configured: "
                            + String.join(", ", properties.getFilters().keySet()));
                }
                requireKeySource(beans, bean, claim + ": the bean");
                String other = claims.putIfAbsent(filter, bean);
                if (other != null) {
                    throw new BloomGuardConfigurationException("Two beans claim filter '" + filter + "' as its key"
                            + " source with @BloomKeySource: '" + other + "' and '" + bean + "'; keep one");
                }
            }
        }
        properties.getFilters().forEach((filter, settings) -> {
            String property = "bloom-guard.filters." + filter + ".source-bean";
            String named = settings.getSourceBean() == null ? "" : settings.getSourceBean().strip();
            if (!named.isEmpty()) {
                if (!beanFactory.containsBean(named)) {
                    throw new BloomGuardConfigurationException(property + " names '" + named
                            + "', but there is no bean of that name");
                }
                requireKeySource(beanFactory, named, property + " names '" + named + "', which");
                String annotated = claims.putIfAbsent(filter, named);
                if (annotated != null && !annotated.equals(named)) {
                    throw new BloomGuardConfigurationException(property + " names '" + named + "', but bean '"
                            + annotated + "' claims filter '" + filter + "' with @BloomKeySource(\"" + filter
                            + "\"); keep one");
                }
            }
            String sql = settings.getWarmup().getSql();
            String bean = claims.get(filter);
            if (bean != null && sql != null && !sql.isBlank()) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + filter + " has both bloom-guard.filters."
                        + filter + ".warmup.sql and the key source bean '" + bean + "'; choose one");
            }
        });
        return claims;
    }

    private static void requireKeySource(BeanFactory beans, String bean, String subject) {
        if (!beans.isTypeMatch(bean, KeySource.class)) {
            Class<?> type = beans.getType(bean);
            throw new BloomGuardConfigurationException(subject + " is " + (type == null ? "of unknown type"
                    : "a " + type.getName()) + ", not a KeySource (" + KeySource.class.getName() + ")");
        }
    }
}
