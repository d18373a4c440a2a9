package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What an application can depend on: the modules the build deploys (those not marked
 * {@code maven.deploy.skip}), all of them in bloom-guard-bom at the project's version, and the
 * README's dependency snippets naming only those. A module added, renamed or unpublished without
 * the BOM and the README following fails here.
 */
class PublishedArtifactsTests {

    private static final Pattern README_DEPENDENCY = Pattern.compile(
            "<groupId>dev\\.bloomguard</groupId>\\s*<artifactId>([^<]+)</artifactId>(?:\\s*<version>([^<]+)</version>)?");

    @Test
    void bomListsEveryPublishedModuleAtTheProjectVersion() throws Exception {
        Path root = ReadmeExamplesTests.projectRoot();
        Document parent = read(root.resolve("pom.xml"));
        Document bom = read(root.resolve("bloom-guard-bom/pom.xml"));

        assertThat(child(bom.getDocumentElement(), "parent"))
                .as("bloom-guard-bom's parent: it would import Spring Boot's dependency management into applications")
                .isNull();
        assertThat(text(bom.getDocumentElement(), "version")).isEqualTo(text(parent.getDocumentElement(), "version"));

        Set<String> listed = new TreeSet<>();
        for (Element dependency : elements(child(child(bom.getDocumentElement(), "dependencyManagement"), "dependencies"),
                "dependency")) {
            assertThat(text(dependency, "groupId")).isEqualTo("dev.bloomguard");
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            listed.add(text(dependency, "artifactId"));
        }
        assertThat(listed).isEqualTo(publishedJars(root, parent));
    }

    @Test
    void readmeDependenciesNamePublishedArtifactsAtTheProjectVersion() throws Exception {
        Path root = ReadmeExamplesTests.projectRoot();
        Document parent = read(root.resolve("pom.xml"));
        Set<String> published = publishedJars(root, parent);
        published.add("bloom-guard-bom");

        Matcher dependency = README_DEPENDENCY.matcher(Files.readString(root.resolve("README.md")));
        List<String> named = new ArrayList<>();
        while (dependency.find()) {
            named.add(dependency.group(1));
            assertThat(published).as("published artifacts").contains(dependency.group(1));
            if (dependency.group(2) != null) {
                assertThat(dependency.group(2)).as("version of %s in the README", dependency.group(1))
                        .isEqualTo(text(parent.getDocumentElement(), "version"));
            }
        }
        assertThat(named).contains("bloom-guard-spring-boot-starter");
    }

    /** The artifact ids of the root pom's modules (profiles included) that build a jar and are deployed. */
    private static Set<String> publishedJars(Path root, Document parent) throws Exception {
        Set<String> published = new TreeSet<>();
        NodeList modules = parent.getElementsByTagName("module");
        for (int i = 0; i < modules.getLength(); i++) {
            Element module = read(root.resolve(modules.item(i).getTextContent().trim()).resolve("pom.xml"))
                    .getDocumentElement();
            String packaging = text(module, "packaging");
            Element properties = child(module, "properties");
            boolean deployed = properties == null || !"true".equals(text(properties, "maven.deploy.skip"));
            if ((packaging == null || packaging.equals("jar")) && deployed) {
                published.add(text(module, "artifactId"));
            }
        }
        assertThat(published).as("published jars").isNotEmpty();
        return published;
    }

    private static Document read(Path pom) throws Exception {
        assertThat(pom).isRegularFile();
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    /** The first child element of {@code parent} called {@code name}, or null. */
    private static Element child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    private static List<Element> elements(Element parent, String name) {
        List<Element> elements = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                elements.add(element);
            }
        }
        return elements;
    }

    private static String text(Element parent, String name) {
        Element child = child(parent, name);
        return child == null ? null : child.getTextContent().trim();
    }
}
