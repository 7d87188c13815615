// Every telemetry section the personality publishes (read_balance, bitmap,
// raid5 once it lands...), shown generically as name: key = value, so a
// new section appears without GUI work.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Card {
    id: sp
    property var sections: []
    title: qsTr("Engine sections")
    subtitle: qsTr("per sample interval")
    implicitHeight: 56 + col.implicitHeight
    ColumnLayout {
        id: col
        anchors { left: parent.left; right: parent.right; top: parent.top }
        spacing: 6
        Label { visible: sp.sections.length === 0; text: qsTr("The level publishes no section."); opacity: 0.6 }
        Repeater {
            model: sp.sections
            ColumnLayout {
                Layout.fillWidth: true
                spacing: 2
                Label { text: modelData.name; font.bold: true; objectName: "section_" + modelData.name }
                Flow {
                    Layout.fillWidth: true
                    spacing: 14
                    Repeater {
                        model: modelData.values
                        Label {
                            text: modelData.key + " <b>" + Theme.count(modelData.value) + "</b>"
                            textFormat: Text.StyledText
                        }
                    }
                }
            }
        }
    }
}
